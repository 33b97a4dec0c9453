import Foundation
import HEIFCodec
import CodecCore
import PNGCodec
import Raster
import Testing

/// One line of a conformance folder's `references.txt` (scripts/make-heif-conformance.py): a
/// file and what the reference decoder drew of it (0 × 0 when it refused the file).
struct ConformanceReference: Sendable {
    let file: String
    let width: Int, height: Int
    /// 1 (grey), 3 (RGB) or 4 (RGBA); 0 when the reference refused the file.
    let channels: Int
    let reference: String
    var drawn: Bool { channels > 0 }

    static func lines(_ text: String, in folder: String) -> [ConformanceReference] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let fields = line.split(separator: "#", maxSplits: 1)[0].split(separator: " ").map(String.init)
            guard fields.count == 5, let width = Int(fields[1]), let height = Int(fields[2]), let channels = Int(fields[3]) else {
                fatalError("malformed line in \(folder)/references.txt: \(line)")
            }
            return ConformanceReference(file: fields[0], width: width, height: height, channels: channels, reference: fields[4])
        }
    }
}

/// The conformance files the reference decoders draw and Masonry does not, each with the start
/// of its skip reason; SPEC's HEIF section lists the same files (checked below).
let conformanceNotRead: [String: String] = [
    // A predictively coded primary item (`pred`): libheif 1.15 would decode it alone, into noise.
    "C044.heic": "HEIF primary item 1004 is predictively coded",
]

/// The conformance files Masonry draws otherwise than the reference, by design, with the reason.
let conformanceDrawnOtherwise: [String: String] = [
    // "Thumbnail image as the primary item": Masonry draws the primary item `pitm` names (its
    // 128×72 thumbnail), as libheif 1.15 does; pillow-heif's libheif draws the 1280×720 master.
    "C005.heic": "the primary item is the 128×72 thumbnail",
]

/// A conformance folder compared with its references: each file drawn by the reference must be
/// drawn by Masonry at its size and within `bar` dB PSNR (on 4×4 block means, as the references
/// are stored), unless `conformanceNotRead` lists it.
struct ConformanceRun {
    var read = 0, refusedByReference = 0, drawnOnlyByMasonry = 0, drawnOtherwise = 0
    var skipped: [(String, String)] = []
    var psnrs: [(String, Double)] = []

    /// A grey reference is compared as RGB (Masonry draws grey as R = G = B); opaque pictures as
    /// RGB, pictures with alpha as RGBA.
    mutating func check(_ entry: ConformanceReference, folder: String, bar: Double) throws {
        let path = folder + "/" + entry.file
        let decoder: HEIFDecoder
        do throws(ImageError) {
            decoder = try HEIFDecoder(file: InputFile(path: path), limits: DecodeLimits(),
                                      minimumWidth: entry.width, minimumHeight: entry.height)
        } catch {
            if !entry.drawn {
                refusedByReference += 1
                return
            }
            skipped.append((entry.file, error.reason))
            let listed = conformanceNotRead[entry.file].map { error.reason.hasPrefix($0) } ?? false
            #expect(listed, "\(entry.file): drawn by \(entry.reference), skipped by Masonry: \(error.reason)")
            return
        }
        read += 1
        guard entry.drawn else {
            refusedByReference += 1
            drawnOnlyByMasonry += 1
            return
        }
        #expect(conformanceNotRead[entry.file] == nil, "\(entry.file) is read: drop it from the not-read list and SPEC")
        if conformanceDrawnOtherwise[entry.file] != nil {
            #expect(decoder.width != entry.width || decoder.height != entry.height,
                    "\(entry.file) is drawn as the reference draws it: drop it from the drawn-otherwise list and SPEC")
            drawnOtherwise += 1
            return
        }
        #expect(decoder.width == entry.width && decoder.height == entry.height,
                "\(entry.file): Masonry \(decoder.width)×\(decoder.height), \(entry.reference) \(entry.width)×\(entry.height)")
        #expect((decoder.rowFormat == .rgba8) == (entry.channels == 4), "\(entry.file): alpha differs from \(entry.reference)")
        guard decoder.width == entry.width && decoder.height == entry.height else { return }
        let channels = decoder.rowFormat.bytesPerPixel
        let ours = blockMeans(try decodeAll(decoder), width: decoder.width, height: decoder.height, channels: channels)
        let reference = try PNGDecoder.decodeRGBA(contentsOfFile: path + ".ref.png")
        #expect(reference.width == entry.width / 4 && reference.height == entry.height / 4, "\(entry.file): reference size")
        let theirs = channels == 4 ? reference.pixels : reference.pixels.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
        guard theirs.count == ours.count else { return }
        let measured = psnr(ours, theirs)
        psnrs.append((entry.file, measured))
        #expect(measured >= bar, "\(entry.file): \(String(format: "%.2f", measured)) dB against \(entry.reference), under \(bar)")
    }

    /// The per-suite numbers of the report.
    func summary(_ name: String) -> String {
        let sorted = psnrs.map(\.1).sorted()
        let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        let worst = psnrs.min { $0.1 < $1.1 }
        let reasons = Dictionary(grouping: skipped, by: \.1).map { "\($0.value.count)× \($0.key)" }.sorted()
        return "\(name): \(read) read (\(psnrs.count) compared), \(skipped.count) skipped\(reasons.isEmpty ? "" : " [\(reasons.joined(separator: "; "))]"), "
            + "\(drawnOtherwise) drawn otherwise by design, \(refusedByReference) refused by the reference (\(drawnOnlyByMasonry) of them drawn by Masonry); "
            + "PSNR min \(String(format: "%.2f", worst?.1 ?? 0)) (\(worst?.0 ?? "-")), median \(String(format: "%.2f", median)) dB"
    }

    /// 4×4 block means, rounded, of rows of `channels` samples (the last columns and rows that
    /// do not fill a block dropped), as scripts/make-heif-conformance.py reduces the references.
    func blockMeans(_ pixels: [UInt8], width: Int, height: Int, channels: Int) -> [UInt8] {
        let columns = width / 4, rows = height / 4
        var sums = [Int](repeating: 0, count: columns * rows * channels)
        for y in 0..<(rows * 4) {
            for x in 0..<(columns * 4) {
                for c in 0..<channels {
                    sums[((y / 4) * columns + x / 4) * channels + c] += Int(pixels[(y * width + x) * channels + c])
                }
            }
        }
        return sums.map { UInt8(($0 + 8) / 16) }
    }
}

/// The AVIF and HEIF conformance suites against their reference decoders: the subset of Link-U's
/// AVIF samples committed under Fixtures/linku, and the full suites when
/// `scripts/fetch-conformance.sh` has fetched them (`MASONRY_LINKU_SAMPLES`,
/// `MASONRY_NOKIA_CONFORMANCE`: folders holding the files and their references).
@Suite struct HEIFConformanceTests {
    /// PSNR bars on 4×4 block means, by reference: pillow-heif runs libde265 as Masonry does
    /// (45 dB); Pillow's libavif (dav1d) converts YCbCr to RGB its own way (42 dB; measured
    /// 43.8 dB at worst over Link-U's 86 pictures); Link-U's originals are the pictures before a
    /// lossy encode (38 dB; measured 40.5 at worst).
    static func bar(_ reference: String) -> Double {
        switch reference {
        case "pillow-heif": 45
        case "pillow-avif": 42
        default: 38
        }
    }

    static func run(_ folder: String, name: String) throws {
        let text = try String(contentsOfFile: folder + "/references.txt", encoding: .utf8)
        let entries = ConformanceReference.lines(text, in: folder)
        #expect(!entries.isEmpty, "\(folder)/references.txt lists no file")
        var run = ConformanceRun()
        for entry in entries {
            try run.check(entry, folder: folder, bar: bar(entry.reference))
        }
        TestLog.verbose(run.summary(name))
        for (file, value) in run.psnrs { TestLog.verbose("  \(file): \(String(format: "%.2f", value)) dB") }
    }

    /// SPEC's HEIF section names every conformance file Masonry does not read or draws otherwise.
    @Test func specListsTheFilesNotRead() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let spec = try String(contentsOf: root.appendingPathComponent("Notes/SPEC.md"), encoding: .utf8)
        for file in conformanceNotRead.keys.sorted() + conformanceDrawnOtherwise.keys.sorted() {
            let named = spec.contains(file.replacingOccurrences(of: ".heic", with: "").replacingOccurrences(of: ".avifs", with: ""))
            #expect(named, "Notes/SPEC.md does not name \(file)")
        }
    }

    @Test func committedLinkUSubsetMatchesLibavif() throws {
        try Self.run(fixtureFolder.path("linku"), name: "Link-U AVIF samples (committed subset)")
    }

    /// Nokia's MIAF007, C008 and C014 structures rebuilt around committed items
    /// (scripts/make-heif-derived-fixtures.py).
    @Test func committedDerivedFixturesMatchPillowHeif() throws {
        try Self.run(fixtureFolder.path("derived"), name: "HEIF derivations (committed)")
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["MASONRY_LINKU_SAMPLES"] != nil))
    func allLinkUSamplesMatchLibavif() throws {
        try Self.run(ProcessInfo.processInfo.environment["MASONRY_LINKU_SAMPLES"]!, name: "Link-U AVIF samples")
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["MASONRY_NOKIA_CONFORMANCE"] != nil))
    func nokiaConformanceFilesMatchPillowHeif() throws {
        try Self.run(ProcessInfo.processInfo.environment["MASONRY_NOKIA_CONFORMANCE"]!, name: "Nokia HEIF conformance")
    }
}
