import Dispatch
import Foundation

/// Threads started together, one body each; `join()` waits until every one has returned.
///
/// Plain `Thread`s with a stack of their own rather than `DispatchQueue.concurrentPerform`,
/// which was seen running its iterations one after another on a 2-core machine.
public struct ThreadGroup: Sendable {
    /// The stack a thread gets unless told otherwise: room for decoding, resampling and deflate.
    public static let defaultStackSize = 1 << 20

    private let running: DispatchGroup

    /// Starts `body(i)` for every i in 0..<count, each on a new thread of `stackSize` bytes.
    public static func start(_ count: Int, stackSize: Int = defaultStackSize,
                             _ body: @escaping @Sendable (Int) -> Void) -> ThreadGroup {
        let running = DispatchGroup()
        for index in 0..<count {
            running.enter()
            let thread = Thread {
                body(index)
                running.leave()
            }
            thread.stackSize = stackSize
            thread.start()
        }
        return ThreadGroup(running: running)
    }

    /// Waits until every thread of the group has returned from its body.
    public func join() { running.wait() }
}
