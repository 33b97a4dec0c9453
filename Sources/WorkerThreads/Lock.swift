import Synchronization
#if MASONRY_TSAN
import CSanitizerRuntime
#endif

/// State guarded by a `Synchronization.Mutex`, as every shared mutable state in Masonry is.
///
/// On Linux `Mutex` is a futex inside the prebuilt Synchronization module, which
/// ThreadSanitizer does not instrument: it sees neither the lock nor the order it imposes, and
/// reports a race on every guarded value. Built for TSan (`scripts/sanitize.sh thread` sets
/// `MASONRY_TSAN`), each critical section also acquires and releases a private address of this
/// lock through TSan's annotations (CSanitizerRuntime), which is exactly the happens-before the
/// mutex gives. Other builds compile to a plain `Mutex`.
public struct Lock<Value: ~Copyable>: ~Copyable, @unchecked Sendable {
    // @unchecked Sendable: `Mutex` is Sendable; the token is only an address TSan keys on.
    private let mutex: Mutex<Value>
    #if MASONRY_TSAN
    private let token = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
    #endif

    public init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    #if MASONRY_TSAN
    deinit { token.deallocate() }
    #endif

    /// Runs `body` with the value, holding the lock.
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            #if MASONRY_TSAN
            __tsan_acquire(token)
            defer { __tsan_release(token) }
            #endif
            return try body(&value)
        }
    }
}
