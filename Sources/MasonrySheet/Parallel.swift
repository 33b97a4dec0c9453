import Dispatch
import Foundation

/// Runs `body(i)` for every i in 0..<count on up to `jobs` threads and
/// returns the results in index order (so the output never depends on the
/// thread count).
func parallelMap<Result: Sendable>(count: Int, jobs: Int, _ body: @Sendable (Int) -> Result) -> [Result] {
    guard count > 0 else { return [] }
    let results = UnsafeMutableBufferPointer<Result?>.allocate(capacity: count)
    results.initialize(repeating: nil)
    defer { results.deallocate() }
    let slots = SharedSlots(results)
    let chunks = min(count, max(1, jobs) * 8)
    DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
        let range = (chunk * count / chunks) ..< ((chunk + 1) * count / chunks)
        for index in range { slots.buffer[index] = body(index) }
    }
    return results.map { $0! }
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
