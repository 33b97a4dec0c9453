// libpng's own hostile inputs (contrib/testpngs crashers/ and badpal/): each
// decodes or fails with a ImageError carrying a reason, never crashes, never
// lets libpng print to stderr, and never costs more than a few MiB.

import Foundation
import CodecCore
import PNGCodec
import Testing

@Suite("libpng crashers and bad palettes", .serialized)
struct PNGRobustnessTests {
    static let files: [String] =
        fixtureFolder.pngNames(in: "libpng/crashers").map { "crashers/" + $0 }
        + fixtureFolder.pngNames(in: "libpng/badpal").map { "badpal/" + $0 }

    @Test func fixturesArePresent() {
        #expect(Self.files.filter { $0.hasPrefix("crashers/") }.count == 23)
        #expect(Self.files.filter { $0.hasPrefix("badpal/") }.count == 9)
    }

    @Test("Hostile file decodes or is refused cleanly, quietly and cheaply", arguments: files)
    func decodesOrFailsCleanly(file: String) throws {
        let path = fixtureFolder.path("libpng/" + file)
        for route in ["file", "bytes"] {
            let bytes = route == "bytes" ? try fixtureFolder.bytes("libpng/" + file) : []
            let ((outcome, stderrText), growth) = ProcessMemory.measuring {
                capturingStderr { () -> String in
                    do {
                        let image = route == "file"
                            ? try PNGDecoder.decodeRGBA(contentsOfFile: path)
                            : try PNGDecoder.decodeRGBA(bytes: bytes)
                        return "decoded \(image.width)×\(image.height)"
                            + (image.pixels.count == image.width * image.height * 4 ? "" : " WITH WRONG PIXEL COUNT")
                    } catch let error as ImageError {
                        return error.reason.isEmpty ? "EMPTY REASON (\(error.kind))" : "failed (\(error.kind)): \(error.reason)"
                    } catch {
                        return "NOT A ImageError: \(type(of: error)) \(error)"
                    }
                }
            }
            TestLog.verbose("\(file) [\(route)]: \(outcome); \(growth)")
            #expect(outcome.hasPrefix("decoded") || outcome.hasPrefix("failed"), "\(file): \(outcome)")
            #expect(!outcome.contains("WRONG PIXEL COUNT"), "\(file): \(outcome)")
            #expect(stderrText.isEmpty, "\(file) [\(route)] wrote to stderr: \(stderrText)")
            #expect(growth.residentPeak < 64 * MiB, "\(file) [\(route)]: \(growth)")
            #expect(growth.virtualPeak < 1024 * MiB, "\(file) [\(route)]: \(growth)")
        }
    }

    @Test("Header reader never crashes on hostile files", arguments: files)
    func headerReaderIsSafe(file: String) throws {
        let bytes = try fixtureFolder.bytes("libpng/" + file)
        for length in [0, 7, 8, 16, 32, 33, bytes.count] where length <= bytes.count {
            do {
                let header = try PNGHeader(parsing: Array(bytes.prefix(length)))
                #expect(length >= 33)
                #expect(header.width > 0 && header.height > 0)
            } catch {
                #expect(!error.reason.isEmpty)
            }
        }
    }
}
