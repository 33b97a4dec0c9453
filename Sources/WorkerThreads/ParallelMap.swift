import Synchronization

/// Runs `body(i)` for every i in 0..<count on up to `jobs` threads and returns the results
/// in index order, so the output never depends on the thread count.
///
/// Each thread claims the lowest index not yet claimed, one at a time, so items start in
/// index order: put the longest items first and the threads finish together.
public func parallelMap<Result: Sendable>(count: Int, jobs: Int,
                                          _ body: @escaping @Sendable (Int) -> Result) -> [Result] {
    guard count > 0 else { return [] }
    let claims = IndexClaims(count: count)
    let finished = FinishedResults<Result>()
    ThreadGroup.start(min(max(1, jobs), count)) { _ in
        var mine: [(index: Int, result: Result)] = []
        while let index = claims.next() { mine.append((index, body(index))) }
        finished.add(mine)
    }.join()
    return finished.inIndexOrder(count: count)
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

/// What each thread computed, handed over once when the thread is done.
private final class FinishedResults<Result: Sendable>: Sendable {
    private let pieces = Lock<[(index: Int, result: Result)]>([])

    func add(_ results: [(index: Int, result: Result)]) {
        pieces.withLock { $0 += results }
    }

    /// Every result at its index; call after all threads have joined.
    func inIndexOrder(count: Int) -> [Result] {
        var slots = [Result?](repeating: nil, count: count)
        pieces.withLock { pieces in
            for piece in pieces { slots[piece.index] = piece.result }
        }
        return slots.map { $0! }
    }
}
