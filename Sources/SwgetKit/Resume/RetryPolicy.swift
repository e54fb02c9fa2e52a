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

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form RFC 9110 requires senders to use.
enum HTTPDate {
    static func parse(_ text: String) -> Date? {
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]),
              let month = months.firstIndex(of: parts[2].lowercased()), let year = Int(parts[3]) else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let h = Int(clock[0]), let m = Int(clock[1]), let s = Int(clock[2]),
              (1...31).contains(day), (0...23).contains(h), (0...59).contains(m), (0...60).contains(s) else { return nil }
        // Days from the civil date (Howard Hinnant's algorithm), no calendar objects needed.
        let y = month < 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 10) % 12  // month is 0-based here
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return Date(timeIntervalSince1970: TimeInterval(days * 86400 + h * 3600 + m * 60 + s))
    }
}
