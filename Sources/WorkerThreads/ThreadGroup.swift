import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Threads started together, one body each; `join()` waits until every one has returned.
///
/// Plain POSIX threads with a stack of their own rather than `DispatchQueue.concurrentPerform`,
/// which was seen running its iterations one after another on a 2-core machine. (Not
/// Foundation's `Thread`: the command links FoundationEssentials only, issue #34.)
public struct ThreadGroup: Sendable {
    /// The stack a thread gets unless told otherwise: room for decoding, resampling and deflate.
    public static let defaultStackSize = 1 << 20

    private let running: DispatchGroup

    /// Starts `body(i)` for every i in 0..<count, each on a new thread of `stackSize` bytes.
    public static func start(_ count: Int, stackSize: Int = defaultStackSize,
                             _ body: @escaping @Sendable (Int) -> Void) -> ThreadGroup {
        let running = DispatchGroup()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, max(stackSize, Int(PTHREAD_STACK_MIN)))
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        for index in 0..<count {
            running.enter()
            let start = Unmanaged.passRetained(ThreadStart { body(index); running.leave() }).toOpaque()
            var thread = pthread_t()
            let created = pthread_create(&thread, &attributes, { context in
                let start = Unmanaged<ThreadStart>.fromOpaque(context!).takeRetainedValue()
                start.body()
                return nil
            }, start)
            precondition(created == 0, "pthread_create failed with \(created)")
        }
        return ThreadGroup(running: running)
    }

    /// Waits until every thread of the group has returned from its body.
    public func join() { running.wait() }
}

/// A thread's body, handed to `pthread_create` as its one pointer.
private final class ThreadStart: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
