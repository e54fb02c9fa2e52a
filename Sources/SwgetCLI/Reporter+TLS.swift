#if canImport(Glibc)
import Glibc
#endif
import SwgetKit

/// What the reporter says about TLS: `-S` lines for each new https connection, warnings from
/// loading TLS files, and `--https-only` refusals.
extension Reporter {
    /// The message for a URL or redirect `--https-only` refuses.
    static let httpsOnlyRefusal = "refused: only https:// URLs are allowed (--https-only)"

    /// A warning line (not printed with `-q`): `swget: warning: TEXT`.
    func reportWarning(_ text: String) {
        say("swget: warning: \(DisplayText.sanitize(text))")
    }

    /// Why `task` failed when `--https-only` refused one of its redirects; nil otherwise. Read
    /// once, when the task's outcome is reported, and forgotten then: a batch keeps no entry
    /// per refused URL.
    func takeRefusal(for task: SessionTask) -> String? {
        refusedRedirects.withLock { $0.remove(task.taskIdentifier) != nil } ? "redirect to http:// " + Self.httpsOnlyRefusal : nil
    }

    /// `-S`: the negotiated protocol and the server's certificate, every server-given text
    /// sanitised for the terminal, like curl's `-v` lines:
    /// ```
    ///   TLS: TLSv1.3, TLS_AES_128_GCM_SHA256, new session (localhost:443)
    ///   Certificate subject: CN=localhost
    ///   Certificate issuer: CN=swget test CA,O=swget tests
    ///   Certificate valid: 2026-11-23 21:03:00 UTC to 2026-11-24 22:03:00 UTC
    /// ```
    static func tlsText(_ info: TLSConnectionInfo) -> String {
        let host = HostText.url(info.host)
        var text = "  TLS: \(DisplayText.sanitize(info.protocolVersion)), \(DisplayText.sanitize(info.cipherSuite ?? "unknown cipher")), "
            + (info.sessionResumed ? "resumed session" : "new session") + " (\(DisplayText.sanitize(host)):\(info.port))"
        if let certificate = info.serverCertificate {
            text += "\n  Certificate subject: \(DisplayText.sanitize(certificate.subject))"
            text += "\n  Certificate issuer: \(DisplayText.sanitize(certificate.issuer))"
            text += "\n  Certificate valid: \(utc(certificate.notValidBefore.timeIntervalSince1970)) to \(utc(certificate.notValidAfter.timeIntervalSince1970))"
        }
        return text
    }

    /// "2026-11-23 21:03:00 UTC".
    static func utc(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        var time = time_t(seconds.rounded(.down).clamped(to: -6.2e10...2.5e11))
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "?" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }
}

private extension Double {
    func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}
