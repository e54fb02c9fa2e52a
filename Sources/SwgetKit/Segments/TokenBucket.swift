/// The global rate limiter of `--limit-rate`, shared by every connection of every transfer:
/// a token bucket that refills at `bytesPerSecond` and holds at most `burst` tokens.
///
/// A pure value: the owner (one actor or lock) calls `take(_:at:)` with the bytes just received
/// and a monotonic clock reading, and pauses that connection's reads for the returned time.
/// Tokens may go negative (debt), so a large read is paid for by the wait that follows it.
///
/// Invariants: the bucket starts empty and never holds more than `burst` tokens, so an idle
/// period buys at most `burst` bytes at full speed (about 100 ms worth by default: smooth, no
/// bursts of seconds); a reader that always honours the waits gets exactly `bytesPerSecond` on
/// average, and in any interval of `t` seconds the bytes taken, apart from the last read of
/// each connection, never exceed `bytesPerSecond × t + burst`.
struct TokenBucket: Sendable {
    /// The refill rate, bytes per second (> 0).
    public let bytesPerSecond: Int64
    /// The most tokens the bucket holds (> 0).
    public let burst: Int64
    /// The tokens now: at most `burst`, negative while in debt.
    private var tokens: Double = 0
    /// The clock reading of the last refill; nil before the first `take`.
    private var lastRefill: Double?

    /// A bucket refilling at `bytesPerSecond` (at least 1), holding at most `burst` tokens
    /// (default: a tenth of a second's worth, at least 16 KiB; at least 1).
    public init(bytesPerSecond: Int64, burst: Int64? = nil) {
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.burst = max(1, burst ?? max(bytesPerSecond / 10, 16 * 1024))
    }

    /// Consumes `bytes` tokens at clock reading `now` (seconds, monotonic; a reading earlier
    /// than the last is taken as the last) and returns how many seconds to wait before these
    /// bytes are allowed, that is before the debt is repaid: 0 when the bucket covered them.
    public mutating func take(_ bytes: Int, at now: Double) -> Double {
        let rate = Double(bytesPerSecond)
        let time = max(now, lastRefill ?? now)
        if let lastRefill {
            tokens = min(Double(burst), tokens + (time - lastRefill) * rate)
        }
        lastRefill = time
        tokens -= Double(bytes)
        return tokens >= 0 ? 0 : -tokens / rate
    }
}
