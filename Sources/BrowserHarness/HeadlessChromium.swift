// A headless Chromium driven over the DevTools protocol on `--remote-debugging-pipe`:
// commands go in on the browser's fd 3, replies and events come out of its fd 4, each a JSON
// text ended by a NUL byte. No port, no WebSocket, no outside library: Foundation's Process
// and two pipes (a shell maps them to fds 3 and 4). Every wait has a deadline; closing asks the
// browser to quit, then kills its process group (Process starts it as a group leader), so no
// renderer outlives a test.
import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A failure of the browser or of the protocol, with the browser's last log lines.
public struct BrowserError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// One headless Chromium with one page (tab), used from one thread.
public final class HeadlessChromium {
    /// The Chromium executable: `MASONRY_CHROMIUM` when set (nil if that is not executable), else
    /// `chromium` or `chromium-browser` on `PATH`, else nil.
    public static func executable() -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let chosen = environment["MASONRY_CHROMIUM"] { return access(chosen, X_OK) == 0 ? chosen : nil }
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for name in ["chromium", "chromium-browser"] {
            for folder in folders where access("\(folder)/\(name)", X_OK) == 0 { return "\(folder)/\(name)" }
        }
        return nil
    }

    private let process: Process
    private let commands: FileHandle
    private let replies: Int32
    private let profile: URL
    private var pending: [UInt8] = []
    private var events: [[String: Any]] = []
    private var nextID = 1
    private var session = ""
    private var closed = false
    /// The default deadline of one command or wait, in seconds.
    public var timeout: Double

    /// Starts the browser with an empty page of `width` × `height` CSS pixels at scale 1.
    public init(executable: String, width: Int = 1000, height: Int = 800, timeout: Double = 30) throws {
        signal(SIGPIPE, SIG_IGN)  // a browser that died must give an error, not kill the tests
        self.timeout = timeout
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("masonry-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let log = profile.appendingPathComponent("browser.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let input = Pipe(), output = Pipe()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec \"$0\" \"$@\" 3<&0 4>&1 </dev/null >/dev/null", executable,
                             "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                             "--user-data-dir=\(profile.path)", "--no-first-run", "--no-default-browser-check",
                             "--disable-extensions", "--disable-background-networking", "--disable-sync",
                             "--disable-component-update", "--disable-breakpad", "--mute-audio", "--hide-scrollbars",
                             "--force-color-profile=srgb", "--force-device-scale-factor=1",
                             "--window-size=\(width),\(height)", "about:blank"]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        commands = input.fileHandleForWriting
        replies = output.fileHandleForReading.fileDescriptor
        do {
            let targets = try send("Target.getTargets", session: false)
            let infos = (targets["targetInfos"] as? [[String: Any]]) ?? []
            guard let page = infos.first(where: { $0["type"] as? String == "page" })?["targetId"] as? String else {
                throw BrowserError("no page target")
            }
            let attached = try send("Target.attachToTarget", ["targetId": page, "flatten": true], session: false)
            session = attached["sessionId"] as? String ?? ""
            _ = try send("Page.enable")
            // Headless windows never hold the system focus: without this, focus() from a script
            // would not match :focus.
            _ = try send("Emulation.setFocusEmulationEnabled", ["enabled": true])
            _ = try send("Emulation.setDeviceMetricsOverride",
                         ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Loads `url` and waits for its load event.
    public func navigate(to url: URL) throws {
        events.removeAll()
        let reply = try send("Page.navigate", ["url": url.absoluteString])
        if let problem = reply["errorText"] as? String { throw BrowserError("navigation failed: \(problem)") }
        _ = try waitForEvent("Page.loadEventFired")
    }

    /// Evaluates a JavaScript expression (promises awaited) and returns its JSON value.
    @discardableResult
    public func evaluate(_ expression: String) throws -> Any? {
        let reply = try send("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = reply["exceptionDetails"] as? [String: Any] {
            let text = ((exception["exception"] as? [String: Any])?["description"] as? String) ?? "\(exception)"
            throw BrowserError("script failed: \(text)")
        }
        return (reply["result"] as? [String: Any])?["value"]
    }

    /// A key the tests press, with what `Input.dispatchKeyEvent` needs.
    public enum Key: String {
        case tab = "Tab", enter = "Enter", space = " ", arrowDown = "ArrowDown", arrowUp = "ArrowUp"
        case home = "Home", end = "End", escape = "Escape"

        var code: (String, Int) {
            switch self {
            case .tab: ("Tab", 9)
            case .enter: ("Enter", 13)
            case .space: ("Space", 32)
            case .arrowDown: ("ArrowDown", 40)
            case .arrowUp: ("ArrowUp", 38)
            case .home: ("Home", 36)
            case .end: ("End", 35)
            case .escape: ("Escape", 27)
            }
        }
    }

    /// Presses and releases a key as a user would (Shift with `shift`).
    public func press(_ key: Key, shift: Bool = false) throws {
        let (code, keyCode) = key.code
        var down: [String: Any] = ["type": "keyDown", "key": key.rawValue, "code": code,
                                   "windowsVirtualKeyCode": keyCode, "modifiers": shift ? 8 : 0]
        if key == .enter { down["text"] = "\r" }
        if key == .space { down["text"] = " " }
        _ = try send("Input.dispatchKeyEvent", down)
        _ = try send("Input.dispatchKeyEvent", ["type": "keyUp", "key": key.rawValue, "code": code,
                                                "windowsVirtualKeyCode": keyCode, "modifiers": shift ? 8 : 0])
    }

    /// Types text into the focused element, as an input method would.
    public func type(_ text: String) throws {
        _ = try send("Input.insertText", ["text": text])
    }

    /// Moves the mouse to a point of the viewport (CSS pixels).
    public func hover(x: Double, y: Double) throws {
        _ = try send("Input.dispatchMouseEvent", ["type": "mouseMoved", "x": x, "y": y])
    }

    /// A PNG of the viewport, or of `clip` (page coordinates) at scale 1.
    public func screenshot(clip: (x: Double, y: Double, width: Double, height: Double)? = nil) throws -> [UInt8] {
        var parameters: [String: Any] = ["format": "png"]
        if let clip {
            parameters["clip"] = ["x": clip.x, "y": clip.y, "width": clip.width, "height": clip.height, "scale": 1]
            parameters["captureBeyondViewport"] = true
        }
        let reply = try send("Page.captureScreenshot", parameters)
        guard let text = reply["data"] as? String, let data = Data(base64Encoded: text) else {
            throw BrowserError("no screenshot data")
        }
        return [UInt8](data)
    }

    /// Sends one command and returns its result (on the page's session unless `session` is false).
    public func send(_ method: String, _ parameters: [String: Any] = [:], session useSession: Bool = true) throws -> [String: Any] {
        let id = nextID
        nextID += 1
        var message: [String: Any] = ["id": id, "method": method, "params": parameters]
        if useSession { message["sessionId"] = session }
        var bytes = try JSONSerialization.data(withJSONObject: message)
        bytes.append(0)
        do { try commands.write(contentsOf: bytes) } catch { throw failure("cannot send \(method): \(error)") }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let reply = try nextMessage(until: deadline, waitingFor: method)
            if reply["id"] as? Int == id {
                if let problem = reply["error"] as? [String: Any] {
                    throw BrowserError("\(method) failed: \(problem["message"] ?? problem)")
                }
                return reply["result"] as? [String: Any] ?? [:]
            }
            if reply["method"] != nil { events.append(reply) }
        }
    }

    /// Waits for an event (one that already arrived counts) and returns its parameters.
    public func waitForEvent(_ method: String) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let index = events.firstIndex(where: { $0["method"] as? String == method }) {
                return events.remove(at: index)["params"] as? [String: Any] ?? [:]
            }
            let message = try nextMessage(until: deadline, waitingFor: method)
            if message["method"] != nil { events.append(message) }
        }
    }

    /// Closes the browser: asks politely, then kills its process group; removes its profile.
    public func close() {
        guard !closed else { return }
        closed = true
        if process.isRunning {
            var bytes = (try? JSONSerialization.data(withJSONObject: ["id": 0, "method": "Browser.close"])) ?? Data()
            bytes.append(0)
            try? commands.write(contentsOf: bytes)
        }
        try? commands.close()
        let pid = process.processIdentifier
        let ownGroup = getpgid(pid) == pid
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if ownGroup { kill(-pid, SIGKILL) } else if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: profile)
    }

    /// Reads until one whole NUL-ended message is buffered, or the deadline passes.
    private func nextMessage(until deadline: Date, waitingFor what: String) throws -> [String: Any] {
        while true {
            if let end = pending.firstIndex(of: 0) {
                let text = Data(pending[..<end])
                pending.removeSubrange(...end)
                guard let message = try JSONSerialization.jsonObject(with: text) as? [String: Any] else {
                    throw failure("a reply that is not a JSON object")
                }
                return message
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw failure("no answer to \(what) within \(timeout) s") }
            var poller = pollfd(fd: replies, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left, 1) * 1000) + 1)
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0 else { throw failure("poll failed while waiting for \(what)") }
            if ready == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = read(replies, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw failure("the browser closed its pipe while waiting for \(what)") }
            pending += chunk[..<count]
        }
    }

    private func failure(_ reason: String) -> BrowserError {
        let log = (try? String(contentsOf: profile.appendingPathComponent("browser.log"), encoding: .utf8)) ?? ""
        let tail = log.split(separator: "\n").suffix(5).joined(separator: "\n    ")
        return BrowserError(tail.isEmpty ? reason : "\(reason); browser log:\n    \(tail)")
    }
}
