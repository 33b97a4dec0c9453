import Foundation
import CodecCore
import PNGCodec
import Raster
import SeededRandom
import WorkerThreads
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The corpus's draws from the shared seeded generator (SplitMix64): the same seed gives the
/// same corpus on every machine.
extension SplitMix64 {
    mutating func corpusInt(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// Log-uniform in `range`.
    mutating func logUniform(_ range: ClosedRange<Double>) -> Double {
        exp(log(range.lowerBound) + unit() * (log(range.upperBound) - log(range.lowerBound)))
    }
}

/// The PNG formats of the corpus. RGB and RGBA are written by `PNGEncoder` directly; the others
/// are written by repacking (see `CorpusWriter.writeRepacked`).
enum CorpusKind: String, CaseIterable {
    case rgb, rgba, grey, palette, rgb16, grey16, greyAlpha

    var colorType: UInt8 {
        switch self {
        case .rgb, .rgb16: 2
        case .rgba: 6
        case .grey, .grey16: 0
        case .palette: 3
        case .greyAlpha: 4
        }
    }
    var bitDepth: UInt8 { self == .rgb16 || self == .grey16 ? 16 : 8 }
    var bytesPerPixel: Int {
        switch self {
        case .rgb: 3
        case .rgba: 4
        case .grey, .palette: 1
        case .rgb16: 6
        case .grey16, .greyAlpha: 2
        }
    }
}

struct CorpusImage {
    let name: String
    let width: Int
    let height: Int
    let kind: CorpusKind
    let seed: UInt64
}

/// Photo-like pixels: a two-colour gradient, three octaves of value noise (shapes, detail,
/// texture) tinted per channel, and per-pixel sensor noise. Compresses like a photograph
/// (about half its raw size with libpng's filters), which is what decode cost depends on.
struct PhotoSynth {
    let width: Int
    let height: Int
    private var rng: SplitMix64
    private let top: SIMD3<Int32>, bottom: SIMD3<Int32>, tint: SIMD3<Int32>
    private let octaves: [(scale: Int, grid: [UInt8], gridWidth: Int, amplitude: Int32)]
    private let noise: Int32

    init(width: Int, height: Int, seed: UInt64, noise: Int32 = 7) {
        self.width = width
        self.height = height
        var rng = SplitMix64(seed: seed)
        func colour() -> SIMD3<Int32> { SIMD3(Int32(rng.corpusInt(20...235)), Int32(rng.corpusInt(20...235)), Int32(rng.corpusInt(20...235))) }
        top = colour()
        bottom = colour()
        tint = SIMD3(Int32(rng.corpusInt(6...16)), Int32(rng.corpusInt(6...16)), Int32(rng.corpusInt(6...16)))
        let side = max(width, height)
        var octaves: [(Int, [UInt8], Int, Int32)] = []
        for (scale, amplitude) in [(max(16, side / 6), Int32(70)), (max(8, side / 40), Int32(30)), (6, Int32(14))] {
            let gridWidth = width / scale + 2, gridHeight = height / scale + 2
            var grid = [UInt8](repeating: 0, count: gridWidth * gridHeight)
            for i in grid.indices { grid[i] = UInt8(truncatingIfNeeded: rng.next()) }
            octaves.append((scale, grid, gridWidth, amplitude))
        }
        self.octaves = octaves
        self.noise = noise
        self.rng = rng
    }

    /// Fills `row` (width * 4 bytes) with straight RGBA8 for row `y`; alpha comes from the
    /// shape octave (opaque in most places, soft transparent holes elsewhere).
    mutating func fillRow(_ y: Int, into row: UnsafeMutablePointer<UInt8>, alpha: Bool) {
        let ty = Int32(y * 256 / max(1, height - 1))
        let base = (top &* (256 - ty) &+ bottom &* ty) &>> 8
        var values = [Int32](repeating: 0, count: width)
        var shape = [Int32](repeating: 0, count: width)
        for (index, octave) in octaves.enumerated() {
            let scale = octave.scale, gw = octave.gridWidth
            let cy = y / scale, fy = Int32((y % scale) * 256 / scale)
            octave.grid.withUnsafeBufferPointer { grid in
                let r0 = grid.baseAddress! + cy * gw, r1 = r0 + gw
                for x in 0..<width {
                    let cx = x / scale, fx = Int32((x % scale) * 256 / scale)
                    let a = Int32(r0[cx]) * (256 - fx) + Int32(r0[cx + 1]) * fx
                    let b = Int32(r1[cx]) * (256 - fx) + Int32(r1[cx + 1]) * fx
                    let v = ((a >> 8) * (256 - fy) + (b >> 8) * fy) >> 8   // 0...255
                    values[x] &+= (v - 128) * octave.amplitude / 128
                    if index == 0 { shape[x] = v }
                }
            }
        }
        let noiseRange = UInt64(2 * noise + 1)
        for x in 0..<width {
            var bits = rng.next()
            let v = values[x]
            for channel in 0..<3 {
                let n = Int32(bits % noiseRange) - noise
                bits /= noiseRange
                let c = base[channel] + v * tint[channel] / 10 + n
                row[4 * x + channel] = UInt8(clamping: c)
            }
            row[4 * x + 3] = alpha ? UInt8(clamping: (shape[x] - 70) * 3) : 255
        }
    }
}

/// Writes corpus files. RGB and RGBA go through `PNGEncoder` (level 6, adaptive filters, as
/// most tools save photographs). Grey, palette, 16-bit and grey+alpha are "repacked": the
/// Up filter works on bytes whatever the pixel size, so the IDAT stream `PNGEncoder` makes
/// for an RGB (or RGBA) image whose rows hold exactly the target format's row bytes is a
/// valid IDAT stream for the target format. The bench copies those IDAT chunks verbatim
/// beside a rewritten IHDR (and a PLTE). No zlib binding or codec change is needed.
enum CorpusWriter {
    static let photoSettings = PNGEncodingSettings(level: 6, strategy: .default, filter: .adaptive)
    static let repackSettings = PNGEncodingSettings(level: 6, strategy: .default, filter: .up)

    static func write(_ image: CorpusImage, to path: String) throws {
        var synth = PhotoSynth(width: image.width, height: image.height, seed: image.seed)
        let rgbaRow = UnsafeMutablePointer<UInt8>.allocate(capacity: image.width * 4)
        defer { rgbaRow.deallocate() }
        switch image.kind {
        case .rgb, .rgba:
            let format: PixelFormat = image.kind == .rgb ? .rgb8 : .rgba8
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw BenchError("cannot create \(path)") }
            defer { close(fd) }
            let encoder = try PNGEncoder(fileDescriptor: fd, width: image.width, height: image.height,
                                         format: format, settings: photoSettings)
            let out = UnsafeMutablePointer<UInt8>.allocate(capacity: image.width * 4)
            defer { out.deallocate() }
            for y in 0..<image.height {
                synth.fillRow(y, into: rgbaRow, alpha: image.kind == .rgba)
                if format == .rgb8 {
                    for x in 0..<image.width { for c in 0..<3 { out[3 * x + c] = rgbaRow[4 * x + c] } }
                    try encoder.writeRow(UnsafeBufferPointer(start: out, count: image.width * 3))
                } else {
                    try encoder.writeRow(UnsafeBufferPointer(start: rgbaRow, count: image.width * 4))
                }
            }
            try encoder.finish()
        default:
            try writeRepacked(image, synth: &synth, rgbaRow: rgbaRow, to: path)
        }
    }

    /// Generates a plain RGB file streaming (used for the huge input), fast settings.
    static func writeLarge(width: Int, height: Int, seed: UInt64, to path: String) throws {
        var synth = PhotoSynth(width: width, height: height, seed: seed, noise: 3)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BenchError("cannot create \(path)") }
        defer { close(fd) }
        let encoder = try PNGEncoder(fileDescriptor: fd, width: width, height: height, format: .rgb8, settings: .fast)
        let rgba = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 4)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 3)
        defer { rgba.deallocate(); out.deallocate() }
        for y in 0..<height {
            synth.fillRow(y, into: rgba, alpha: false)
            for x in 0..<width { for c in 0..<3 { out[3 * x + c] = rgba[4 * x + c] } }
            try encoder.writeRow(UnsafeBufferPointer(start: out, count: width * 3))
        }
        try encoder.finish()
    }

    private static func writeRepacked(_ image: CorpusImage, synth: inout PhotoSynth,
                                      rgbaRow: UnsafeMutablePointer<UInt8>, to path: String) throws {
        let kind = image.kind, width = image.width
        let rowBytes = width * kind.bytesPerPixel
        let carrier: PixelFormat = rowBytes % 3 == 0 ? .rgb8 : .rgba8
        precondition(rowBytes % carrier.bytesPerPixel == 0, "corpus widths are chosen so rows repack")
        var raw = [UInt8](repeating: 0, count: rowBytes * image.height)
        var noise = SplitMix64(seed: image.seed ^ 0x5EED)
        raw.withUnsafeMutableBufferPointer { raw in
            for y in 0..<image.height {
                synth.fillRow(y, into: rgbaRow, alpha: kind == .greyAlpha)
                let out = raw.baseAddress! + y * rowBytes
                for x in 0..<width {
                    let r = Int(rgbaRow[4 * x]), g = Int(rgbaRow[4 * x + 1]), b = Int(rgbaRow[4 * x + 2])
                    let grey = UInt8((r * 77 + g * 150 + b * 29) >> 8)
                    switch kind {
                    case .grey: out[x] = grey
                    case .greyAlpha: out[2 * x] = grey; out[2 * x + 1] = rgbaRow[4 * x + 3]
                    case .palette: out[x] = UInt8(r * 6 / 256 * 36 + g * 6 / 256 * 6 + b * 6 / 256)
                    case .rgb16:
                        for c in 0..<3 {
                            let v = UInt16(rgbaRow[4 * x + c]) &* 257 &+ UInt16(truncatingIfNeeded: noise.next() & 0xFF) / 2
                            out[6 * x + 2 * c] = UInt8(v >> 8); out[6 * x + 2 * c + 1] = UInt8(v & 0xFF)
                        }
                    case .grey16:
                        let v = UInt16(grey) &* 257 &+ UInt16(truncatingIfNeeded: noise.next() & 0xFF) / 2
                        out[2 * x] = UInt8(v >> 8); out[2 * x + 1] = UInt8(v & 0xFF)
                    case .rgb, .rgba: break
                    }
                }
            }
        }
        let encoded = try PNGEncoder.encode(pixels: raw, width: rowBytes / carrier.bytesPerPixel, height: image.height,
                                            format: carrier, settings: repackSettings)
        var png = PNGChunk.signature + PNGChunk.header(width: width, height: image.height,
                                                        bitDepth: kind.bitDepth, colorType: kind.colorType)
        if kind == .palette {
            var plte = [UInt8]()
            for i in 0..<216 { plte += [UInt8(i / 36 * 51), UInt8(i / 6 % 6 * 51), UInt8(i % 6 * 51)] }
            png += PNGChunk.bytes(type: "PLTE", data: plte)
        }
        // Copy every IDAT chunk verbatim (its CRC covers only its type and data).
        var offset = 8
        while offset + 8 <= encoded.count {
            let length = Int(UInt32(encoded[offset]) << 24 | UInt32(encoded[offset + 1]) << 16
                             | UInt32(encoded[offset + 2]) << 8 | UInt32(encoded[offset + 3]))
            let type = String(decoding: encoded[offset + 4 ..< offset + 8], as: UTF8.self)
            if type == "IDAT" { png += encoded[offset ..< offset + 12 + length] }
            offset += 12 + length
        }
        png += PNGChunk.bytes(type: "IEND", data: [])
        guard FileManager.default.createFile(atPath: path, contents: Data(png)) else {
            throw BenchError("cannot write \(path)")
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The corpus plan: which images, of what sizes and formats, all from one seed.
struct CorpusPlan {
    let seed: UInt64
    let photoCount: Int
    let maxSide: Int
    let wallDistinct = 100
    var wallCount = 2000
    let headerCount = 5000
    let hugeSide: Int

    static func make(quick: Bool, seed: UInt64) -> CorpusPlan {
        quick ? CorpusPlan(seed: seed, photoCount: 48, maxSide: 2000, wallCount: 600, hugeSide: 8000)
              : CorpusPlan(seed: seed, photoCount: 200, maxSide: 4000, hugeSide: 20000)
    }

    var manifestText: String {
        "masonry-bench corpus v2\nseed \(seed)\nphotos \(photoCount)\nmaxSide \(maxSide)\n"
            + "wall \(wallDistinct)x\(wallCount / wallDistinct)\nheaders \(headerCount)\nhuge \(hugeSide)\n"
    }

    /// Photo-like images: sides from 300 px to `maxSide`; landscape, portrait, square and
    /// panorama (2.5:1 to 4:1); mostly RGB, then RGBA, grey, palette, 16-bit and grey+alpha.
    var photos: [CorpusImage] {
        var rng = SplitMix64(seed: seed)
        let kinds: [(CorpusKind, Int)] = [(.rgb, 45), (.rgba, 15), (.grey, 10), (.palette, 10), (.rgb16, 10),
                                          (.grey16, 5), (.greyAlpha, 5)]
        var images: [CorpusImage] = []
        for index in 0..<photoCount {
            let shape = rng.corpusInt(0...99)
            let aspect: Double = shape < 15 ? 2.5 + rng.unit() * 1.5 : (shape < 25 ? 1 : 1.25 + rng.unit() * 0.6)
            let short = Int(rng.logUniform(300...(Double(maxSide) / aspect)))
            let long = min(maxSide, max(300, Int(Double(short) * aspect)))
            var (width, height) = shape >= 25 && shape < 60 ? (short, long) : (long, short)   // 35 % portrait
            var pick = rng.corpusInt(0...99)
            var kind = CorpusKind.rgb
            for (candidate, weight) in kinds { if pick < weight { kind = candidate; break }; pick -= weight }
            if kind == .grey || kind == .palette { width -= width % 12 }   // rows repack as RGB or RGBA
            if kind == .grey16 || kind == .greyAlpha { width -= width % 2 }
            width = max(width, 300 - 300 % 12); height = max(height, 300)
            images.append(CorpusImage(name: String(format: "img%04d-%@.png", index, kind.rawValue),
                                      width: width, height: height, kind: kind, seed: rng.next()))
        }
        return images
    }

    /// The small images behind the 2,000-image wall and the 5,000-file header folder.
    var wallImages: [CorpusImage] {
        var rng = SplitMix64(seed: seed ^ 0xA11)
        return (0..<wallDistinct).map { index in
            let width = rng.corpusInt(64...360), height = rng.corpusInt(64...360)
            return CorpusImage(name: String(format: "w%03d.png", index), width: width, height: height,
                               kind: index % 5 == 4 ? .rgba : .rgb, seed: rng.next())
        }
    }
}

/// Builds (or reuses) the corpus folder: photos/, wall/, headers/, huge/ and a manifest.
func prepareCorpus(at root: String, plan: CorpusPlan, log: (String) -> Void) throws {
    let manifestPath = root + "/manifest.txt"
    if let existing = try? String(contentsOfFile: manifestPath, encoding: .utf8), existing == plan.manifestText {
        log("corpus: reusing \(root)")
        return
    }
    log("corpus: generating in \(root) (one-off; reused while the manifest matches)")
    let fm = FileManager.default
    try? fm.removeItem(atPath: root)
    for sub in ["photos", "wall", "headers", "huge"] {
        try fm.createDirectory(atPath: root + "/" + sub, withIntermediateDirectories: true)
    }
    let started = Date()
    // Largest first so the two cores finish together.
    let photos = plan.photos.sorted { $0.width * $0.height > $1.width * $1.height }
    let work: [(CorpusImage, String)] = photos.map { ($0, root + "/photos/" + $0.name) }
        + plan.wallImages.map { ($0, root + "/wall/" + $0.name) }
    let failures = parallelMap(count: work.count + 1, jobs: ProcessInfo.processInfo.activeProcessorCount) { index -> String? in
        do {
            if index == 0 {
                try CorpusWriter.writeLarge(width: plan.hugeSide, height: plan.hugeSide, seed: plan.seed ^ 0xB16,
                                            to: root + "/huge/huge.png")
            } else {
                try CorpusWriter.write(work[index - 1].0, to: work[index - 1].1)
            }
            return nil
        } catch {
            return "\(error)"
        }
    }.compactMap { $0 }
    if let failure = failures.first { throw BenchError("corpus generation failed: \(failure)") }
    // The wall: 2,000 names, hard links to the distinct small images. The header folder: 5,000.
    let wall = plan.wallImages
    for index in 0..<plan.wallCount {
        let source = root + "/wall/" + wall[index % wall.count].name
        guard link(source, root + "/wall/" + String(format: "l%04d.png", index)) == 0 else { throw BenchError("link failed") }
    }
    for index in 0..<wall.count {
        unlink(root + "/wall/" + wall[index].name)   // keep exactly wallCount names
    }
    for index in 0..<plan.headerCount {
        let source = root + "/wall/" + String(format: "l%04d.png", index % plan.wallCount)
        guard link(source, root + "/headers/" + String(format: "h%05d.png", index)) == 0 else { throw BenchError("link failed") }
    }
    try plan.manifestText.write(toFile: manifestPath, atomically: true, encoding: .utf8)
    log(String(format: "corpus: generated in %.1f s", Date().timeIntervalSince(started)))
}
