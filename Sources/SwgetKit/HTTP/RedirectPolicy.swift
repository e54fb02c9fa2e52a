#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The redirect rules of RFC 9110 §15.4 as pure functions: which statuses redirect, where the
/// next request goes, with which method, body and headers.
enum RedirectPolicy {
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    static func isRedirect(status: Int) -> Bool { redirectStatuses.contains(status) }

    /// Where a client goes after `status` with `location` answered a request for `target`.
    ///
    /// - 303: any method but HEAD becomes GET without a body.
    /// - 301/302: POST becomes GET without a body (what every browser, wget and curl do).
    /// - 307/308: method and body are kept.
    /// Only http and https targets are followed. The header fields of the next request are not
    /// decided here: ``HopRequest`` derives them from the original request (origin rule).
    static func nextTarget(after target: HopTarget, status: Int, location: String?) throws(SessionError) -> HopTarget {
        guard let location, !location.isEmpty else {
            throw SessionError.badRedirect.with("redirect (\(status)) without a Location header")
        }
        guard let url = resolve(location, against: target.url) else {
            throw SessionError.badRedirect.with("redirect to an unparseable location '\(location.prefix(200))'")
        }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else {
            throw SessionError.badRedirect.with("refusing to follow a redirect to '\(url.absoluteString.prefix(200))'")
        }
        var next = HopTarget(url: url, method: target.method, sendsBody: target.sendsBody)
        let method = Request.uppercased(method: target.method)
        if (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") {
            next.method = "GET"
            next.sendsBody = false
        }
        return next
    }

    /// The request a client sends after `status` with `location` answered `request`, when
    /// `request` is the original: ``nextTarget(after:status:location:)`` through ``HopRequest``.
    static func nextRequest(after request: Request, status: Int, location: String?) throws(SessionError) -> Request {
        let next = try nextTarget(after: HopTarget(request), status: status, location: location)
        return HopRequest.make(original: request, target: next)
    }

    /// The target of a request that ``HopRequest`` built (URL, method and body choice).
    static func target(of request: Request) -> HopTarget {
        HopTarget(url: request.url, method: request.method, sendsBody: request.body != nil)
    }

    /// Resolves a Location value against the URL it answered. Servers send raw spaces and
    /// UTF-8 in Location: they are percent-encoded first, as browsers and curl do.
    static func resolve(_ location: String, against base: URL) -> URL? {
        let encoded = percentEncodeIllegalBytes(location.trimmingOWS)
        guard let url = URL(string: encoded, relativeTo: base)?.absoluteURL else { return nil }
        return url
    }

    private static func percentEncodeIllegalBytes(_ s: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for byte in s.utf8 {
            switch byte {
            case 0x21...0x7E where !"\"<>\\^`{|}".containsByte(byte):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
