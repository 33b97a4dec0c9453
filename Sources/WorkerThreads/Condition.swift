#if canImport(Glibc)
import Glibc
#endif

/// A mutex and a condition variable over it (POSIX `pthread_mutex_t` and `pthread_cond_t`), for
/// threads that wait until other threads change guarded state: `lock()`, then `wait()` in a loop
/// over the predicate, `signal()`/`broadcast()` after a change, `unlock()`.
///
/// In place of Foundation's `NSCondition` (the command links FoundationEssentials only, issue #34);
/// ThreadSanitizer sees pthread mutexes, so no annotation is needed.
public final class Condition: @unchecked Sendable {
    // @unchecked Sendable: both objects are made for sharing between threads, at fixed addresses.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    /// Releases the mutex, sleeps until signalled (or spuriously), and takes the mutex again.
    public func wait() { pthread_cond_wait(condition, mutex) }
    /// Like `wait()`, but for `seconds` at the most; false when the time ran out.
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds = Int(now.tv_nsec) + Int(seconds * 1e9)
        var deadline = timespec(tv_sec: now.tv_sec + nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }
    /// Wakes one waiting thread.
    public func signal() { pthread_cond_signal(condition) }
    /// Wakes every waiting thread.
    public func broadcast() { pthread_cond_broadcast(condition) }

    /// Runs `body` holding the mutex.
    public func withLock<Result, E: Error>(_ body: () throws(E) -> Result) throws(E) -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
