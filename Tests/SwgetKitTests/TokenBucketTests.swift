import Testing
@testable import SwgetKit
import SwgetTestSupport

/// The `--limit-rate` token bucket, driven by a simulated clock.
@Suite("Token bucket (pure)")
struct TokenBucketTests {
    static let kib: Int64 = 1024
    static let mib: Int64 = 1 << 20

    static let bursts: [(rate: Int64, burst: Int64)] = [
        (1, 16_384), (100 * kib, 16_384), (160 * kib, 16_384), (500 * kib, 51_200),
        (10 * mib, mib), (1_000_000_007, 100_000_000),
    ]

    @Test("default burst: a tenth of a second, at least 16 KiB", arguments: bursts)
    func defaultBurst(rate: Int64, burst: Int64) {
        #expect(TokenBucket(bytesPerSecond: rate).burst == burst)
        #expect(TokenBucket(bytesPerSecond: rate, burst: 7).burst == 7)
    }

    /// The bucket starts empty; a read is paid for by the wait after it (debt).
    @Test func debtIsRepaidByWaiting() {
        var bucket = TokenBucket(bytesPerSecond: Self.mib)
        #expect(bucket.take(Int(Self.mib), at: 10) == 1)
        #expect(bucket.take(0, at: 10.5) == 0.5)
        #expect(bucket.take(Int(Self.mib / 2), at: 11) == 0.5)
        #expect(bucket.take(0, at: 11.5) == 0)
    }

    /// However long the idle period, it buys at most `burst` bytes without waiting.
    @Test("idle periods accumulate at most the burst", arguments: [0.05, 0.1, 1, 10, 3600])
    func idleIsCapped(idle: Double) {
        let rate = 500 * Self.kib
        var bucket = TokenBucket(bytesPerSecond: rate)
        #expect(bucket.take(0, at: 100) == 0)
        let earned = min(Double(bucket.burst), idle * Double(rate))
        let wait = bucket.take(Int(Self.mib), at: 100 + idle)
        #expect(abs(wait - (Double(Self.mib) - earned) / Double(rate)) < 1e-9)
    }

    /// A clock reading from the past neither refills nor breaks the bucket.
    @Test func clockGoingBackwardsIsTheLastReading() {
        var bucket = TokenBucket(bytesPerSecond: 1000, burst: 1000)
        #expect(bucket.take(1000, at: 5) == 1)
        #expect(bucket.take(1000, at: 4) == 2)
        #expect(bucket.take(0, at: 7) == 0)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let rate: Int64
        let readers: Int
        let seed: UInt64
        var testDescription: String { "\(rate) B/s, \(readers) reader(s), seed \(seed)" }
    }

    static let cases: [Case] = [100 * kib, 500 * kib, 2 * mib, 10 * mib, 50 * mib].flatMap { rate in
        [1, 4].flatMap { readers in (1...3).map { Case(rate: rate, readers: readers, seed: UInt64($0)) } }
    }

    /// Readers sharing one bucket read 1 KiB…1 MiB at a time, each honouring the wait it gets,
    /// plus up to 2 ms of jitter, for 5 simulated seconds. The average rate is within ±2% of the
    /// target, and no 1-second window holds more than `rate + burst`, not counting the last read
    /// of each reader in the window (a read is atomic; the limiter can only delay the next one).
    @Test("smooth and exact over 5 s of random reads", arguments: cases)
    func averageAndWindows(_ c: Case) {
        var random = SplitMix64(seed: c.seed)
        var bucket = TokenBucket(bytesPerSecond: c.rate)
        var next = (0..<c.readers).map { _ in Double.random(in: 0..<0.002, using: &random) }
        var reads: [(time: Double, bytes: Int64, reader: Int)] = []
        var allowedUntil = 0.0
        while let reader = next.indices.min(by: { next[$0] < next[$1] }), next[reader] < 5 {
            let time = next[reader]
            let bytes = Int64.random(in: Self.kib...Self.mib, using: &random)
            let wait = bucket.take(Int(bytes), at: time)
            #expect(wait >= 0)
            reads.append((time, bytes, reader))
            allowedUntil = max(allowedUntil, time + wait)
            next[reader] = time + wait + Double.random(in: 0..<0.002, using: &random)
        }
        let total = reads.reduce(Int64(0)) { $0 + $1.bytes }
        let average = Double(total) / allowedUntil
        #expect(abs(average / Double(c.rate) - 1) <= 0.02, "average \(average) B/s")

        let limit = c.rate + bucket.burst
        for (index, first) in reads.enumerated() {
            var perReader: [Int: Int64] = [:]
            var sum: Int64 = 0
            for read in reads[index...] where read.time < first.time + 1 {
                sum += read.bytes
                perReader[read.reader] = read.bytes
            }
            let withoutLastReads = sum - perReader.values.reduce(0, +)
            #expect(withoutLastReads <= limit + 1, "window at \(first.time): \(withoutLastReads) > \(limit)")
            if withoutLastReads > limit + 1 { return }
        }
    }
}
