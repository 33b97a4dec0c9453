import Foundation

/// Diagnostic lines of the tests (outcomes, timings, memory growth): printed only when
/// `MASONRY_TEST_VERBOSE=1`, so a passing `swift test` prints the runners' lines and the
/// seeds, and nothing that reads like a failure. A failing check carries its own details
/// in its `#expect` message.
public enum TestLog {
    public static let isVerbose = ProcessInfo.processInfo.environment["MASONRY_TEST_VERBOSE"] == "1"

    public static func verbose(_ line: @autoclosure () -> String) {
        if isVerbose { print(line()) }
    }
}
