// The thread pool: results in index order whatever the thread count, every index run once,
// items started in index order, real concurrency, the stack size asked for, joins that wait,
// and job threads that run every job submitted before they end.

import Dispatch
import Foundation
import WorkerThreads
import Testing
@testable import WorkerThreads

/// Indices in the order they were recorded, from any thread.
private final class Record: Sendable {
    private let indices = Lock<[Int]>([])
    func add(_ index: Int) { indices.withLock { $0.append(index) } }
    var all: [Int] { indices.withLock { $0 } }
}

@Suite("Worker threads")
struct WorkerThreadsTests {
    @Test("parallelMap: results in index order, each index run once", arguments: [1, 2, 3, 8, 64])
    func resultsInIndexOrder(jobs: Int) {
        for count in [0, 1, 2, 7, 1000] {
            let record = Record()
            let results = parallelMap(count: count, jobs: jobs) { index in
                record.add(index)
                return index &* 2_654_435_761 % 1_000_003
            }
            #expect(results == (0..<count).map { $0 &* 2_654_435_761 % 1_000_003 }, "\(count) items, \(jobs) jobs")
            #expect(record.all.sorted() == Array(0..<count), "\(count) items, \(jobs) jobs: each index once")
        }
    }

    @Test("ParallelMapping: results by index while the caller works, each index run once", arguments: [1, 2, 5])
    func backgroundMappingGivesEveryResultAtItsIndex(jobs: Int) {
        for count in [0, 1, 3, 1000] {
            let record = Record()
            let mapping = ParallelMapping(count: count, jobs: jobs) { index in
                record.add(index)
                return "item \(index)"
            }
            let meanwhile = (0 ..< 1000).reduce(0, +)   // the caller's own work
            mapping.wait()
            #expect(meanwhile == 499_500)
            #expect(mapping.count == count)
            #expect((0 ..< count).map { mapping[$0] } == (0 ..< count).map { "item \($0)" }, "\(count) items, \(jobs) jobs")
            #expect(mapping.results() == (0 ..< count).map { "item \($0)" })
            #expect(record.all.sorted() == Array(0 ..< count), "\(count) items, \(jobs) jobs: each index once")
        }
    }

    @Test func oneThreadStartsItemsInIndexOrder() {
        let record = Record()
        _ = parallelMap(count: 300, jobs: 1) { record.add($0) }
        #expect(record.all == Array(0..<300))
    }

    /// Two items that each wait for the other: only threads that really run at once pass
    /// (a serialising pool times out instead of hanging).
    @Test func itemsRunAtTheSameTime() {
        let arrived = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let metTheOther = parallelMap(count: 2, jobs: 2) { index in
            arrived[index].signal()
            return arrived[1 - index].wait(timeout: .now() + 10) == .success
        }
        #expect(metTheOther == [true, true])
    }

    /// The calling thread's stack size, from glibc's `pthread_getattr_np` (a GNU extension
    /// that Swift's Glibc module leaves out, hence `dlsym`); 0 when it cannot be read.
    private static func currentStackSize() -> Int {
        typealias GetAttributes = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getattr_np") else { return 0 }
        var attributes = pthread_attr_t()
        guard unsafeBitCast(symbol, to: GetAttributes.self)(pthread_self(), &attributes) == 0 else { return 0 }
        defer { pthread_attr_destroy(&attributes) }
        var size = 0
        pthread_attr_getstacksize(&attributes, &size)
        return size
    }

    @Test("Threads get the stack size asked for", arguments: [ThreadGroup.defaultStackSize, 256 << 10])
    func stackSize(bytes: Int) {
        let sizes = Record()
        ThreadGroup.start(2, stackSize: bytes) { _ in sizes.add(Self.currentStackSize()) }.join()
        #expect(sizes.all.count == 2)
        // glibc may hand a thread a cached stack up to 4 times the size asked for; its own
        // default (8 MiB from `ulimit -s`) is larger than that.
        #expect(sizes.all.allSatisfy { $0 >= bytes && $0 <= 4 * bytes + (64 << 10) }, "\(sizes.all) for \(bytes)")
    }

    @Test func joinWaitsForEveryThread() {
        let finished = Record()
        ThreadGroup.start(4) { index in
            usleep(UInt32(20_000 * (4 - index)))
            finished.add(index)
        }.join()
        #expect(finished.all.sorted() == [0, 1, 2, 3])
    }

    @Test("Job threads run every submitted job before they end", arguments: [1, 3])
    func jobThreadsFinishTheirJobs(threads: Int) {
        let ran = Record()
        do {
            let jobs = JobThreads(count: threads)
            for index in 0..<200 {
                jobs.submit {
                    if index % 50 == 0 { usleep(5_000) }
                    ran.add(index)
                }
            }
        }  // `jobs` goes away here: its threads finish the queue and are joined
        if threads == 1 {
            #expect(ran.all == Array(0..<200), "one thread runs jobs in the order submitted")
        } else {
            #expect(ran.all.sorted() == Array(0..<200))
        }
    }
}
