import Dispatch
import Foundation
import Synchronization

/// Runs `body(i)` for every i in 0..<count on up to `jobs` threads and
/// returns the results in index order (so the output never depends on the
/// thread count). Plain threads rather than `concurrentPerform`, which was
/// seen running its iterations one after another on this 2-core machine.
func parallelMap<Result: Sendable>(count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> Result) -> [Result] {
    guard count > 0 else { return [] }
    let results = UnsafeMutableBufferPointer<Result?>.allocate(capacity: count)
    results.initialize(repeating: nil)
    defer { results.deallocate() }
    let slots = SharedSlots(results)
    let next = WorkCounter()
    let chunk = max(1, min(256, count / max(1, jobs * 8)))
    startThreads(min(max(1, jobs), (count + chunk - 1) / chunk)) { _ in
        while let range = next.claim(chunk, of: count) {
            for index in range { slots.buffer[index] = body(index) }
        }
    }.wait()
    return results.map { $0! }
}

/// Hands out consecutive index ranges to threads.
final class WorkCounter: Sendable {
    private let next = Mutex(0)

    /// The next `size` indices below `count`, or nil when none are left.
    func claim(_ size: Int, of count: Int) -> Range<Int>? {
        next.withLock { next in
            guard next < count else { return nil }
            let range = next ..< min(count, next + size)
            next = range.upperBound
            return range
        }
    }
}

/// A buffer whose disjoint slots are written by different threads.
///
/// `@unchecked Sendable` because the compiler cannot see that every writer
/// owns a disjoint index range and that readers wait for all writers to end.
final class SharedSlots<Element>: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Element>
    init(_ buffer: UnsafeMutableBufferPointer<Element>) { self.buffer = buffer }
}

/// Starts `body` on `count` new threads; `wait()` the result to join them.
func startThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> DispatchGroup {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    return group
}
