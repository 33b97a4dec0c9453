// `PNGDecoder.nextRow()`: the pull API, on every PngSuite file and both decode routes, checked
// against the outside decoder's goldens (Fixtures/goldens.txt) and against `readRows`.

import CodecCore
import PNGCodec
import Raster
import TestSupport
import Testing

@Suite("PNG rows pulled one at a time")
struct PNGRowPullingTests {
    static let routes: [PNGDecodeRoute] = [.automatic, .libpngOnly]

    /// Every row `nextRow()` gives, concatenated, and how many there were.
    static func pullAll(_ decoder: PNGDecoder) throws -> (bytes: [UInt8], rows: Int) {
        var bytes: [UInt8] = [], rows = 0
        while let row = try decoder.nextRow() {
            #expect(row.count == decoder.header.width * decoder.rowFormat.bytesPerPixel)
            bytes += row
            rows += 1
        }
        return (bytes, rows)
    }

    static func open(_ name: String, route: PNGDecodeRoute, compact: Bool = false) throws -> PNGDecoder {
        try PNGDecoder(file: InputFile(path: fixtureFolder.path("pngsuite/" + name)), compactOpaqueRows: compact, route: route)
    }

    @Test("Pulled rows match the golden digest and the pushed rows", arguments: Golden.validNames, routes)
    func pulledRowsMatch(name: String, route: PNGDecodeRoute) throws {
        for compact in [false, true] {
            let label = "\(name) \(route) compact \(compact)"
            let pulling = try Self.open(name, route: route, compact: compact)
            let pulled = try Self.pullAll(pulling)
            #expect(pulled.rows == pulling.header.height, "\(label)")
            #expect(try pulling.nextRow() == nil, "\(label): the end stays the end")
            if !compact {
                #expect(SHA256.hex(pulled.bytes) == Golden.byName[name]?.digest, "\(label)")
            }
            let pushing = try Self.open(name, route: route, compact: compact)
            var pushed: [UInt8] = []
            try pushing.readRows { _, row in pushed += row }
            #expect(pulled.bytes == pushed, "\(label)")
            #expect(pulling.rowFormat == pushing.rowFormat, "\(label)")
            #expect(pulling.trailingProblem == pushing.trailingProblem, "\(label)")
        }
    }

    @Test("A corrupt file is refused at the same row as with readRows, and on every later call", arguments: Golden.rejectNames, routes)
    func corruptFileFailsTheSame(name: String, route: PNGDecodeRoute) throws {
        let pulling: PNGDecoder, pushing: PNGDecoder
        do {
            pulling = try Self.open(name, route: route)
            pushing = try Self.open(name, route: route)
        } catch {
            return   // refused before any row: nothing to pull
        }
        var pulledRows = 0, pulledError: ImageError?
        do {
            while try pulling.nextRow() != nil { pulledRows += 1 }
        } catch {
            pulledError = error
        }
        var pushedRows = 0, pushedError: ImageError?
        do {
            try pushing.readRows { _, _ in pushedRows += 1 }
        } catch {
            pushedError = error as? ImageError
        }
        #expect(pulledRows == pushedRows && pulledError == pushedError, "\(name) \(route)")
        if let pulledError {
            #expect(throws: pulledError) { try pulling.nextRow() }
        } else {
            #expect(pulling.trailingProblem != nil, "\(name) \(route): must be rejected, at the latest after its rows")
        }
    }

    @Test("Stopping after 3 rows gives the first 3 rows, and the decoder can be released", arguments: Golden.validNames, routes)
    func earlyStop(name: String, route: PNGDecodeRoute) throws {
        let full = try Self.pullAll(try Self.open(name, route: route)).bytes
        var decoder: PNGDecoder? = try Self.open(name, route: route)
        let rowBytes = decoder!.header.width * decoder!.rowFormat.bytesPerPixel
        let count = min(3, decoder!.header.height)
        var first: [UInt8] = []
        for _ in 0..<count { first += try #require(try decoder!.nextRow()) }
        #expect(first == Array(full.prefix(count * rowBytes)), "\(name) \(route)")
        #expect(throws: ImageError.self, "rows already pulled cannot be pushed") { try decoder!.readRows { _, _ in } }
        decoder = nil
    }
}
