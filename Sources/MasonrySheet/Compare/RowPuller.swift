import Foundation

/// Turns a push decoder (one that hands each row to a closure, as `PNGDecoder.readRows` does)
/// into a pull source, so two images can be read in lockstep: the producer runs on a thread of
/// its own and copies its rows into a ring of at most `capacity` rows; `next()` returns them in
/// order. Memory is `capacity` rows, whatever the image's height.
///
/// A side that has to wait sleeps until the ring is half full (consumer) or half empty
/// (producer), and is woken only then: handing over row by row would cost two thread
/// switches a row, which on a busy machine took longer than decoding.
///
/// `next()` is called from one thread only. A row returned by `next()` stays valid until the
/// following call. `close()` (also run on deinit) stops a producer that has not finished and
/// joins its thread.
final class RowPuller: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is touched only while holding `condition`,
    // except the ring's bytes, whose slots are written by the producer only while they are free
    // and read by the consumer only while it holds them (both decided under the lock).
    /// What a producer calls for each row; throws once the puller was closed.
    typealias Deliver = (UnsafeBufferPointer<UInt8>) throws -> Void

    /// Thrown into the producer by `deliver` after `close()`.
    struct Closed: Error {}

    let rowBytes: Int
    private let capacity: Int
    private let ring: UnsafeMutableBufferPointer<UInt8>
    private let condition = NSCondition()
    private var head = 0
    private var count = 0
    private var holding = false
    private var producerDone = false
    private var producerError: (any Error)?
    private var closed = false
    private var producerWaiting = false
    private var consumerWaiting = false
    private let joined = DispatchSemaphore(value: 0)
    private var joinedOnce = false

    /// Starts `produce` on a new thread; it calls `deliver` with each row of `rowBytes` bytes.
    init(rowBytes: Int, capacity: Int = 32, produce: @escaping @Sendable (_ deliver: Deliver) throws -> Void) {
        self.rowBytes = rowBytes
        self.capacity = max(2, capacity)
        ring = .allocate(capacity: max(1, rowBytes * self.capacity))
        let thread = Thread { [self] in
            var failure: (any Error)?
            do { try produce { row in try self.put(row) } } catch { failure = error }
            condition.lock()
            producerDone = true
            producerError = failure
            condition.broadcast()
            condition.unlock()
            joined.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    deinit {
        close()
        ring.deallocate()
    }

    private func put(_ row: UnsafeBufferPointer<UInt8>) throws {
        precondition(row.count == rowBytes, "a producer delivers rows of rowBytes bytes")
        condition.lock()
        defer { condition.unlock() }
        if !closed && count == capacity {
            producerWaiting = true
            while !closed && count > capacity / 2 { condition.wait() }
            producerWaiting = false
        }
        if closed { throw Closed() }
        let slot = (head + count) % capacity
        // The slot is free: the consumer reads only slots counted in `count`.
        condition.unlock()
        _ = UnsafeMutableBufferPointer(rebasing: ring[slot * rowBytes ..< (slot + 1) * rowBytes]).update(fromContentsOf: row)
        condition.lock()
        count += 1
        if consumerWaiting && count >= capacity / 2 { condition.broadcast() }
    }

    /// The next row, or nil after the last one; rethrows what the producer threw.
    func next() throws -> UnsafeBufferPointer<UInt8>? {
        condition.lock()
        defer { condition.unlock() }
        if holding {
            holding = false
            head = (head + 1) % capacity
            count -= 1
            if producerWaiting && count <= capacity / 2 { condition.broadcast() }
        }
        if count == 0 && !producerDone {
            consumerWaiting = true
            while count < capacity / 2 && !producerDone { condition.wait() }
            consumerWaiting = false
        }
        guard count > 0 else {
            if let producerError { throw producerError }
            return nil
        }
        holding = true
        return UnsafeBufferPointer(rebasing: ring[head * rowBytes ..< (head + 1) * rowBytes])
    }

    /// Stops the producer (its next `deliver` throws `Closed`) and waits for its thread to end.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        let mustJoin = !joinedOnce
        joinedOnce = true
        condition.unlock()
        if mustJoin { joined.wait() }
    }
}
