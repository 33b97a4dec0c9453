import Foundation
import JPEGCodec
import CodecCore
import PNGCodec
import Testing

/// Broken and hostile JPEGs: each gives a one-line reason (or a picture with a trailing
/// problem), never a crash, a hang or a large allocation.
@Suite struct JPEGHostileTests {
    static let baseline = "coffee-q85-420.jpg"
    static let progressive = "astronaut-q75-420-progressive.jpg"

    static func isOneLine(_ error: ImageError?) -> Bool {
        guard let reason = error?.reason else { return false }
        return !reason.isEmpty && !reason.contains("\n")
    }

    @Test func notAJPEG() throws {
        let folder = TemporaryFolder("jpeg-hostile")
        let png = PNGBytes.signature + [UInt8](repeating: 0, count: 40)
        let outcome = decodeOutcome(folder.write("x.jpg", png))
        #expect(outcome.error == ImageError(.malformed, "not a JPEG file"))
        #expect(!JPEGHeader.hasSignature(png))
        #expect(JPEGHeader.hasSignature([0xFF, 0xD8, 0xFF, 0xE0]))
        #expect(!JPEGHeader.hasSignature([0xFF, 0xD8]))
    }

    /// Cut before the scan: the header pass refuses the file.
    @Test(arguments: [Self.baseline, Self.progressive])
    func truncatedBeforeTheImageData(_ name: String) throws {
        let bytes = try fixtureFolder.bytes(name)
        let folder = TemporaryFolder("jpeg-hostile")
        let scan = JPEGSurgery.scanDataStart(bytes)
        for cut in [0, 1, 2, 3, 4, 20, JPEGSurgery.frameOffset(bytes) + 5, scan - 3] {
            let outcome = decodeOutcome(folder.write("cut-\(cut).jpg", Array(bytes.prefix(cut))))
            #expect(outcome.error?.kind == .malformed, "cut at \(cut)")
            #expect(Self.isOneLine(outcome.error), "cut at \(cut): \(String(describing: outcome.error))")
            #expect(throws: ImageError.self) { try JPEGHeader(bytes: Array(bytes.prefix(cut))) }
        }
    }

    /// Cut inside the scan(s): the rows still come (grey where data is missing) and the
    /// trailing problem says the image data is truncated. (Tile 0: decoded at 1/8.)
    @Test(arguments: [Self.baseline, Self.progressive])
    func truncatedInsideTheImageData(_ name: String) throws {
        let bytes = try fixtureFolder.bytes(name)
        let folder = TemporaryFolder("jpeg-hostile")
        let scan = JPEGSurgery.scanDataStart(bytes)
        let header = try JPEGHeader(bytes: bytes)
        for cut in [scan + 1, scan + (bytes.count - scan) / 2, bytes.count - 2] {
            let outcome = decodeOutcome(folder.write("cut-\(cut).jpg", Array(bytes.prefix(cut))), tile: 0)
            #expect(outcome.error == nil, "cut at \(cut)")
            #expect(outcome.rows == (header.height + 7) / 8, "cut at \(cut)")
            #expect(outcome.trailing == ImageError(.malformed, "truncated image data"), "cut at \(cut)")
        }
    }

    /// Entropy-coded data replaced by all one-bits (FF 00 stuffed bytes), which no Huffman
    /// table codes: libjpeg warns, fills in, and the rows come.
    @Test(arguments: [Self.baseline, Self.progressive])
    func corruptHuffmanData(_ name: String) throws {
        var bytes = try fixtureFolder.bytes(name)
        let scan = JPEGSurgery.scanDataStart(bytes)
        for i in stride(from: scan + 100, to: scan + 400, by: 2) { bytes[i] = 0xFF; bytes[i + 1] = 0x00 }
        let folder = TemporaryFolder("jpeg-hostile")
        let outcome = decodeOutcome(folder.write("huffman.jpg", bytes))
        #expect(outcome.error == nil)
        #expect(outcome.trailing?.kind == .malformed)
        #expect(Self.isOneLine(outcome.trailing), "\(String(describing: outcome.trailing))")
    }

    /// A Huffman table whose code counts add up to more than 256: fatal, one line.
    @Test func bogusHuffmanTable() throws {
        var bytes = try fixtureFolder.bytes(Self.baseline)
        let dht = try #require(JPEGSurgery.offset(of: 0xC4, in: bytes))
        for i in dht + 5 ..< dht + 21 { bytes[i] = 0xFF }   // the 16 code-length counts
        let folder = TemporaryFolder("jpeg-hostile")
        let outcome = decodeOutcome(folder.write("dht.jpg", bytes))
        #expect(outcome.error?.kind == .malformed)
        #expect(Self.isOneLine(outcome.error), "\(String(describing: outcome.error))")
    }

    /// 65535×65535 claimed by a tiny file: refused by the pixel limit before libjpeg is asked.
    @Test func bogusFrameSize() throws {
        let bytes = JPEGSurgery.withSize(try fixtureFolder.bytes("cat-orientation-1.jpg"), width: 65535, height: 65535)
        let header = try JPEGHeader(bytes: bytes)
        #expect(header.width == 65535 && header.height == 65535)
        let folder = TemporaryFolder("jpeg-hostile")
        let path = folder.write("huge.jpg", bytes)
        let outcome = decodeOutcome(path)
        #expect(outcome.error == DecodeLimits().refusal(width: 65535, height: 65535))
        // With the pixel limit lifted, libjpeg's own limit (65500) still refuses it.
        let lifted = decodeOutcome(path, limits: DecodeLimits(maxPixels: Int.max, maxWidth: Int.max))
        #expect(lifted.error?.kind == .limitExceeded)
        #expect(Self.isOneLine(lifted.error), "\(String(describing: lifted.error))")
    }

    @Test(arguments: [(0, 160), (240, 0), (0, 0)])
    func zeroSide(_ size: (Int, Int)) throws {
        let bytes = JPEGSurgery.withSize(try fixtureFolder.bytes("cat-orientation-1.jpg"), width: size.0, height: size.1)
        let folder = TemporaryFolder("jpeg-hostile")
        let outcome = decodeOutcome(folder.write("zero.jpg", bytes))
        #expect(outcome.error == ImageError(.malformed, "image is \(size.0)×\(size.1): a JPEG needs a width and height of at least 1"))
    }

    /// A progressive file of well under a kilobyte claiming 13000×13000: its coefficients
    /// would take ~500 MB, over the decoding memory budget, so libjpeg refuses before
    /// allocating them (it would have allocated 498 MB without a budget).
    @Test func tinyProgressiveFileClaimingAHugeSize() throws {
        let grey = [UInt8](repeating: 128, count: 16 * 16 * 3)
        let small = try JPEGEncoder.encode(rgb: grey, width: 16, height: 16, quality: 50, progressive: true)
        let bytes = JPEGSurgery.withSize(small, width: 13000, height: 13000)
        #expect(bytes.count < 1024)
        let folder = TemporaryFolder("jpeg-hostile")
        let path = folder.write("bomb.jpg", bytes)
        let header = try JPEGHeader(bytes: bytes)
        #expect(header.isProgressive && header.width == 13000)
        let outcome = decodeOutcome(path, tile: 100)
        #expect(outcome.error == ImageError(.limitExceeded, "image needs more decoding memory than the budget allows"))
        // The unpatched 16×16 original decodes: the claimed size is what is refused.
        let fine = decodeOutcome(folder.write("small.jpg", small))
        #expect(fine.error == nil && fine.trailing == nil)
    }

    /// The budget is what refuses: a real 512×512 progressive file (about 0.8 MB of
    /// coefficients) is refused under a 256 KiB budget, and decodes under the default one.
    @Test func memoryBudgetBoundsProgressiveDecoding() throws {
        let path = fixtureFolder.path(Self.progressive)
        #expect(throws: ImageError(.limitExceeded, "image needs more decoding memory than the budget allows")) {
            try JPEGDecoder(file: InputFile(path: path), limits: DecodeLimits(), minimumWidth: 8, minimumHeight: 8,
                            memoryBudget: 256 << 10)
        }
        #expect(decodeOutcome(path).error == nil)
    }

    /// A baseline file claiming 8000×8000 with almost no data: rows stream at 1/8 scale with
    /// bounded memory and time, and the truncation is reported.
    @Test func tinyBaselineFileClaimingALargeSize() throws {
        let bytes = JPEGSurgery.withSize(try fixtureFolder.bytes("cat-orientation-1.jpg"), width: 8000, height: 8000)
        let folder = TemporaryFolder("jpeg-hostile")
        let outcome = decodeOutcome(folder.write("big.jpg", bytes), tile: 100)
        #expect(outcome.error == nil)
        #expect(outcome.rows == 1000)
        #expect(outcome.trailing?.kind == .malformed)
    }

    /// SOF3 (lossless) is not a process libjpeg-turbo 2.1 decodes: said before decoding.
    @Test func unsupportedProcess() throws {
        var bytes = try fixtureFolder.bytes(Self.baseline)
        bytes[JPEGSurgery.frameOffset(bytes) + 1] = 0xC3
        let folder = TemporaryFolder("jpeg-hostile")
        let outcome = decodeOutcome(folder.write("lossless.jpg", bytes))
        #expect(outcome.error == ImageError(.malformed, "unsupported JPEG process (lossless or hierarchical, SOF3)"))
    }

    // MARK: EXIF

    static func orientation(of tiff: [UInt8], declaredLength: Int? = nil) throws -> ExifOrientationResult {
        let bytes = JPEGSurgery.withExif(try fixtureFolder.bytes("cat-orientation-1.jpg"), tiff: tiff, declaredLength: declaredLength)
        do {
            return .orientation(try JPEGHeader(bytes: bytes).orientation.rawValue)
        } catch {
            return .error(error)
        }
    }

    enum ExifOrientationResult: Equatable {
        case orientation(Int)
        case error(ImageError)
    }

    @Test func wellFormedExifIsRead() throws {
        let tiff = JPEGSurgery.tiff(entries: [(0x0100, 4, 1, 240), (0x0112, 3, 1, 6)])
        #expect(try Self.orientation(of: tiff) == .orientation(6))
        // Little-endian TIFF: Pillow's fixtures (cat-orientation-*) are "II"; checked there.
    }

    @Test func exifWithAnIFDOffsetLoop() throws {
        // IFD0 links to itself as its next IFD, and its offset field is read only once.
        let looping = JPEGSurgery.tiff(entries: [(0x0112, 3, 1, 8)], nextIFD: 8)
        #expect(try Self.orientation(of: looping) == .orientation(8))
        // IFD0 offset pointing at the TIFF header itself (a loop back to the start).
        let selfPointing = JPEGSurgery.tiff(entries: [(0x0112, 3, 1, 3)], ifdOffset: 0)
        #expect(try Self.orientation(of: selfPointing) == .orientation(1))
    }

    @Test func exifWithLyingLengthsAndOffsets() throws {
        // An entry count far beyond the block.
        let manyEntries = JPEGSurgery.tiff(entries: [(0x0100, 4, 1, 1)], entryCount: 0xFFFF)
        #expect(try Self.orientation(of: manyEntries) == .orientation(1))
        // IFD0 beyond the block.
        let farIFD = JPEGSurgery.tiff(entries: [(0x0112, 3, 1, 6)], ifdOffset: 0xFFFF_FFF0)
        #expect(try Self.orientation(of: farIFD) == .orientation(1))
        // Wrong type for the orientation, and a value outside 1...8.
        #expect(try Self.orientation(of: JPEGSurgery.tiff(entries: [(0x0112, 4, 1, 6)])) == .orientation(1))
        #expect(try Self.orientation(of: JPEGSurgery.tiff(entries: [(0x0112, 3, 1, 9)])) == .orientation(1))
        // Not a TIFF header at all.
        #expect(try Self.orientation(of: Array("XX*\0garbage".utf8)) == .orientation(1))
        // A segment length shorter than the TIFF block: the block is cut, orientation 1, and
        // the rest of the block is then garbage before the next marker (skipped, as libjpeg does).
        let cut = JPEGSurgery.tiff(entries: [(0x0100, 4, 1, 1), (0x0112, 3, 1, 6)])
        #expect(try Self.orientation(of: cut, declaredLength: 2 + 6 + 12) == .orientation(1))
        // A segment length running past the end of the file: a one-line error, not a hang.
        guard case .error(let error) = try Self.orientation(of: cut, declaredLength: 0xFFFF) else {
            Issue.record("a segment longer than the file was accepted")
            return
        }
        #expect(error == ImageError(.malformed, "truncated JPEG file (before the image data)"))
    }

    /// A FIFO, a folder: refused by InputFile before the JPEG reader sees them.
    @Test func onlyRegularFiles() throws {
        let folder = TemporaryFolder("jpeg-hostile")
        #expect(mkfifo(folder.file("fifo.jpg"), 0o600) == 0)
        #expect(throws: ImageError.self) { try JPEGHeader(file: InputFile(path: folder.file("fifo.jpg"))) }
        #expect(throws: ImageError.self) { try JPEGHeader(file: InputFile(path: folder.path)) }
    }
}
