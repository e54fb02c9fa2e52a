import NIOConcurrencyHelpers
import NIOCore

/// The session's `--limit-rate`: one ``TokenBucket`` shared by every connection of every task,
/// behind a lock. A connection reports the body bytes it just received and delays its next
/// socket read by the answer, so the limit holds across parallel transfers and segments.
final class RateLimiter: Sendable {
    private let bucket: NIOLockedValueBox<TokenBucket>
    let bytesPerSecond: Int64

    init(bytesPerSecond: Int64) {
        self.bytesPerSecond = bytesPerSecond
        bucket = NIOLockedValueBox(TokenBucket(bytesPerSecond: bytesPerSecond))
    }

    /// How long to wait before reading again after `bytes` arrived.
    func delay(after bytes: Int) -> TimeAmount {
        let now = Double(NIODeadline.now().uptimeNanoseconds) / 1e9
        let seconds = bucket.withLockedValue { $0.take(bytes, at: now) }
        return seconds > 0 ? .nanoseconds(Int64(seconds * 1e9)) : .zero
    }

    /// The pause `limiter` calls for after `bytes` arrived, nil when the next read may go at
    /// once (no limit, nothing read, or tokens to spare): the one rule every handler's
    /// read loop follows.
    static func pause(_ limiter: RateLimiter?, after bytes: Int) -> TimeAmount? {
        guard let limiter, bytes > 0 else { return nil }
        let delay = limiter.delay(after: bytes)
        return delay > .zero ? delay : nil
    }

    /// Socket reads small enough for a smooth rate: about 50 ms worth, 4 KiB to `maximum`.
    func readSize(upTo maximum: Int) -> Int {
        Int(min(Int64(maximum), max(4096, bytesPerSecond / 20)))
    }
}
