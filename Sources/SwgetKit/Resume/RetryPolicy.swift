#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When to try a failed transfer again, and how long to wait first: capped exponential backoff
/// with jitter, honouring `Retry-After`. A pure value; the task driver does the waiting.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in total, the first included (wget's `--tries`); 0 means no limit.
    public var maxAttempts: Int = 20
    /// The wait before the second attempt; it doubles each time.
    public var initialDelay: Duration = .seconds(1)
    /// The longest wait between attempts (wget's `--waitretry`).
    public var maxDelay: Duration = .seconds(10)
    /// The longest `Retry-After` honoured; a server asking for more ends the retries.
    public var maxRetryAfter: Duration = .seconds(600)

    public init() {}

    /// No retries at all.
    public static var none: RetryPolicy {
        var policy = RetryPolicy()
        policy.maxAttempts = 1
        return policy
    }

    /// Whether the failure is worth another attempt: the network failed or stalled, or the
    /// server said it is busy (408, 429, 500, 502, 503, 504). Certificates, bad URLs, local
    /// file errors, protocol violations and other statuses are permanent.
    static func isTransient(_ error: SessionError) -> Bool {
        error.category == .network && error != SessionError.unresolvableHost && error != SessionError.resourceTimedOut
    }

    static func isTransient(status: Int) -> Bool {
        [408, 429, 500, 502, 503, 504].contains(status)
    }

    /// The wait before attempt number `attempt + 1` (attempt counts from 1), or nil when no
    /// attempt is left. `retryAfter` is the server's `Retry-After` value, if any; `random` is
    /// in 0..<1 and spreads clients apart (the wait is between half and all of the backoff).
    func delay(afterAttempt attempt: Int, retryAfter: String?, now: Date = Date(), random: Double) -> Duration? {
        if maxAttempts > 0 && attempt >= maxAttempts { return nil }
        if let retryAfter, let asked = Self.parseRetryAfter(retryAfter, now: now) {
            return asked <= maxRetryAfter ? asked : nil
        }
        let exponent = min(max(attempt - 1, 0), 30)
        var backoff = initialDelay * (1 << exponent)
        if backoff > maxDelay { backoff = maxDelay }
        return backoff * (0.5 + 0.5 * random)
    }

    /// `Retry-After`: delay-seconds, or an HTTP-date (IMF-fixdate) in the future.
    static func parseRetryAfter(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingOWS
        if let seconds = Int(text), seconds >= 0 { return .seconds(seconds) }
        guard let date = HTTPDate.parse(text) else { return nil }
        let interval = date.timeIntervalSince(now)
        return .milliseconds(Int64(max(0, interval) * 1000))
    }
}
