import Foundation
import Testing
import TestSupport
@testable import MasonrySheet

/// The push → pull bridge under the lockstep decode.
@Suite struct CompareRowPullerTests {
    /// A producer of `count` rows of `width` bytes, row y filled with y's low byte; it records
    /// the most rows it ever ran ahead of the consumer.
    final class Producer: @unchecked Sendable {
        // @unchecked Sendable: `produced` is only touched while holding `lock`.
        let lock = NSLock()
        var produced = 0
        let count: Int, width: Int, failAt: Int?
        init(count: Int, width: Int, failAt: Int? = nil) { self.count = count; self.width = width; self.failAt = failAt }

        func run(_ deliver: RowPuller.Deliver) throws {
            var row = [UInt8](repeating: 0, count: width)
            for y in 0..<count {
                if y == failAt { throw CocoaError(.fileReadCorruptFile) }
                row.withUnsafeMutableBufferPointer { $0.update(repeating: UInt8(truncatingIfNeeded: y)) }
                try row.withUnsafeBufferPointer { try deliver($0) }
                lock.withLock { produced = y + 1 }
            }
        }
    }

    @Test(arguments: [1, 7, 1000]) func deliversEveryRowInOrderWithinItsCapacity(count: Int) throws {
        let producer = Producer(count: count, width: 33)
        let puller = RowPuller(rowBytes: 33, capacity: 4) { try producer.run($0) }
        var y = 0
        while let row = try puller.next() {
            #expect(row.allSatisfy { $0 == UInt8(truncatingIfNeeded: y) }, "row \(y)")
            // The producer may hold one more row than the ring while it waits to deliver it.
            let ahead = producer.lock.withLock { producer.produced } - y
            #expect(ahead <= 5, "the producer ran \(ahead) rows ahead")
            y += 1
        }
        #expect(y == count)
        #expect(try puller.next() == nil)
    }

    @Test func throwsWhatTheProducerThrowsAfterItsRows() throws {
        let producer = Producer(count: 10, width: 8, failAt: 6)
        let puller = RowPuller(rowBytes: 8) { try producer.run($0) }
        var rows = 0
        #expect(throws: CocoaError.self) {
            while try puller.next() != nil { rows += 1 }
        }
        #expect(rows == 6)
    }

    @Test func closingEarlyStopsABlockedProducer() {
        let producer = Producer(count: 1_000_000, width: 64)
        let puller = RowPuller(rowBytes: 64, capacity: 2) { try producer.run($0) }
        _ = try? puller.next()
        puller.close()
        #expect(producer.lock.withLock { producer.produced } < 10)
    }
}
