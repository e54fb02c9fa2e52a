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

    /// The request a client sends after `status` with `location` answered `request`.
    ///
    /// - 303: any method but HEAD becomes GET without a body.
    /// - 301/302: POST becomes GET without a body (what every browser, wget and curl do).
    /// - 307/308: method and body are kept.
    /// Only http and https targets are followed. Credentials and cookies set on the request are
    /// dropped when the origin (scheme, host, port) changes.
    static func nextRequest(after request: Request, status: Int, location: String?) throws(SessionError) -> Request {
        guard let location, !location.isEmpty else {
            throw SessionError.badRedirect.with("redirect (\(status)) without a Location header")
        }
        guard let target = resolve(location, against: request.url) else {
            throw SessionError.badRedirect.with("redirect to an unparseable location '\(location.prefix(200))'")
        }
        guard let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = target.host, !host.isEmpty else {
            throw SessionError.badRedirect.with("refusing to follow a redirect to '\(target.absoluteString.prefix(200))'")
        }
        var next = request
        next.url = target
        let method = request.method.uppercased()
        if (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") {
            next.method = "GET"
            next.body = nil
            next.headers.remove("Content-Type")
            next.headers.remove("Content-Encoding")
        }
        if !Origin(request.url).isSame(as: Origin(target)) {
            for name in ["Authorization", "Proxy-Authorization", "Cookie"] { next.headers.remove(name) }
        }
        return next
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
            case 0x21...0x7E where !"\"<>\\^`{|}".utf8.contains(byte):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Scheme, host and port: the unit that credentials and connections belong to.
struct Origin: Hashable, Sendable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = (url.host ?? "").lowercased()
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    func isSame(as other: Origin) -> Bool { self == other }

    var description: String { "\(scheme)://\(host):\(port)" }
}

/// Counts hops and remembers visited URLs so that a chain of redirects ends with a clear error.
struct RedirectChain: Sendable {
    let limit: Int
    private(set) var hops = 0
    private var visited: [String]

    init(limit: Int, start: URL) {
        self.limit = limit
        self.visited = [Self.key(start)]
    }

    /// Records one more hop to `url`; throws when it exceeds the limit or revisits a URL.
    mutating func advance(to url: URL) throws(SessionError) {
        hops += 1
        let key = Self.key(url)
        if visited.contains(key) {
            throw SessionError.redirectLoop.with("redirect loop: \(url.absoluteString) was already visited")
        }
        if hops > limit {
            throw SessionError.tooManyRedirects.with("too many redirects (more than \(limit))")
        }
        visited.append(key)
    }

    private static func key(_ url: URL) -> String {
        var s = url.absoluteString
        if let hash = s.firstIndex(of: "#") { s = String(s[..<hash]) }
        return s
    }
}
