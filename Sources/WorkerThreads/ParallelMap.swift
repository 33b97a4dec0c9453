import Synchronization

/// Runs `body(i)` for every i in 0..<count on up to `jobs` threads and returns the results
/// in index order, so the output never depends on the thread count.
///
/// Each thread claims the lowest index not yet claimed, one at a time, so items start in
/// index order: put the longest items first and the threads finish together.
public func parallelMap<Result: Sendable>(count: Int, jobs: Int,
                                          _ body: @escaping @Sendable (Int) -> Result) -> [Result] {
    ParallelMapping(count: count, jobs: jobs, body).results()
}

/// A `parallelMap` started in the background: the calling thread does other work (the header
/// pass runs while the inputs are sorted), then `wait()`s and reads the results by index.
///
/// Each result is written straight into its slot of one buffer, so a million results cost their
/// own size once (gathering them per thread and then in index order held them three times).
public final class ParallelMapping<Result: Sendable>: @unchecked Sendable {
    /// How many results there are.
    public let count: Int
    private let storage: UnsafeMutablePointer<Result>
    private let threads: ThreadGroup?
    /// Set by `wait()`, on the thread that made the mapping; only that thread reads results.
    private var finished = false

    /// Starts `body(i)` for every i in 0..<count on up to `jobs` threads, and returns at once.
    public init(count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> Result) {
        self.count = count
        let storage = UnsafeMutablePointer<Result>.allocate(capacity: max(count, 1))
        self.storage = storage
        guard count > 0 else {
            threads = nil
            return
        }
        let claims = IndexClaims(count: count)
        let slots = SendablePointer(storage)
        threads = ThreadGroup.start(min(max(1, jobs), count)) { _ in
            while let index = claims.next() { (slots.pointer + index).initialize(to: body(index)) }
        }
    }

    deinit {
        wait()
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    /// Waits until every result is in.
    public func wait() {
        guard !finished else { return }
        threads?.join()
        finished = true
    }

    /// The result for `index`, after `wait()`.
    public subscript(index: Int) -> Result {
        precondition(finished && index >= 0 && index < count, "result \(index) read before wait() or out of range")
        return storage[index]
    }

    /// Waits, then gives every result in index order.
    public func results() -> [Result] {
        wait()
        return Array(UnsafeBufferPointer(start: storage, count: count))
    }
}

/// The results buffer, handed to the threads that fill disjoint slots of it.
private struct SendablePointer<Pointee>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Pointee>
    init(_ pointer: UnsafeMutablePointer<Pointee>) { self.pointer = pointer }
}

/// Hands out the indices 0..<count, each once, in increasing order.
private final class IndexClaims: Sendable {
    private let count: Int
    private let claimed = Atomic(0)

    init(count: Int) { self.count = count }

    /// The lowest index not yet handed out, or nil when none is left.
    func next() -> Int? {
        let index = claimed.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < count ? index : nil
    }
}
