import Dispatch

/// A fixed set of dedicated threads that run submitted jobs, started in the order submitted.
/// Dedicated rather than shared: a caller blocked waiting for a job's result can never starve
/// them, as it could a shared pool. When the object goes away the threads run every job
/// already submitted, then end, and are joined.
public final class JobThreads: Sendable {
    private let queue: JobQueue
    private let threadCount: Int
    private let threads: ThreadGroup

    /// Starts `count` (at least 1) threads that wait for jobs.
    public init(count: Int) {
        let queue = JobQueue()
        self.queue = queue
        threadCount = max(1, count)
        threads = ThreadGroup.start(threadCount) { _ in
            while let job = queue.take() { job() }
        }
    }

    deinit {
        for _ in 0..<threadCount { queue.put(nil) }
        threads.join()
    }

    /// Queues `job` for the next free thread.
    public func submit(_ job: @escaping @Sendable () -> Void) { queue.put(job) }
}

/// Jobs first in, first out; a nil job tells the thread that takes it to end.
private final class JobQueue: Sendable {
    private let jobs = Lock<[(@Sendable () -> Void)?]>([])
    private let available = DispatchSemaphore(value: 0)

    func put(_ job: (@Sendable () -> Void)?) {
        jobs.withLock { $0.append(job) }
        available.signal()
    }

    /// Waits for the oldest job; nil once the thread should end.
    func take() -> (@Sendable () -> Void)? {
        available.wait()
        return jobs.withLock { $0.removeFirst() }
    }
}
