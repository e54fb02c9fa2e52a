#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOHTTP1

/// An http(s) URL checked for what a connection and a request head need: a known scheme, a
/// host that cannot smuggle anything into the Host header, a port in 1–65535. Building one is
/// the check; the request head is written from it.
struct HTTPTarget: Sendable, Equatable {
    let origin: Origin
    /// The host as used for connecting (an IPv6 literal without brackets).
    let host: String
    let url: URL

    init(_ url: URL) throws(SessionError) {
        let scheme: String
        if url.hasScheme("https") {
            scheme = "https"
        } else if url.hasScheme("http") {
            scheme = "http"
        } else {
            throw SessionError.unsupportedURL.with("unsupported scheme '\(DisplayText.sanitize(url.scheme ?? ""))' (swget speaks http and https)")
        }
        guard let host = url.host, !host.isEmpty else {
            throw SessionError.unsupportedURL.with("URL has no host")
        }
        guard Self.isValidHost(host) else {
            throw SessionError.unsupportedURL.with("invalid host name '\(DisplayText.sanitize(host))'")
        }
        let port = url.port
        if let port, !(1...65535).contains(port) {
            throw SessionError.unsupportedURL.with("invalid port \(port) (must be 1-65535)")
        }
        self.url = url
        self.host = host
        // Origin(url) would read the scheme, host and port again: each read of a URL's part
        // makes a new string (about 2,000 instructions for the three).
        self.origin = Origin(scheme: scheme, host: host, port: port ?? Origin.defaultPort(scheme: scheme))
    }

    /// Checks `url` as a target of an http(s) request without building anything.
    static func validate(_ url: URL) throws(SessionError) {
        _ = try HTTPTarget(url)
    }

    /// Letters, digits and `-._` (host names, IPv4), or an IPv6 literal; nothing that could
    /// smuggle spaces, control characters or `@` tricks into a connection or Host header.
    static func isValidHost(_ host: String) -> Bool {
        if host.containsByte(UInt8(ascii: ":")) { return host.utf8.allSatisfy { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") || isHexDigit($0) } }
        return host.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66)
    }

    /// The `Host` field value: the host (IPv6 in brackets), with the port unless it is the
    /// scheme's default.
    var hostField: String {
        origin.port == Origin.defaultPort(scheme: origin.scheme) ? HostText.url(host) : HostText.endpoint(host, port: origin.port)
    }

    /// Header fields the engine writes itself; a request's own values for them are ignored.
    static let managedFields = ["Host", "Content-Length", "Connection", "Transfer-Encoding"]

    /// The HTTP/1.1 request head of `request` (already built for its hop by ``HopRequest``):
    /// origin-form target, `Host`, the session's default fields the request does not set, the
    /// request's own fields, then the body's framing (`Content-Length` or
    /// `Transfer-Encoding: chunked`) and `Expect: 100-continue` as `framing` says (nil: as the
    /// request's in-memory body, if any, calls for, without `Expect`).
    func requestHead(for request: Request, defaultHeaders: HeaderFields, absoluteForm: Bool = false,
                     framing: RequestFraming? = nil) -> HTTPRequestHead {
        let framing = framing ?? RequestFraming(method: request.method, bodyLength: request.httpBody.map { Int64($0.count) },
                                                expect: [], threshold: nil)
        var target = request.url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = request.url.query(percentEncoded: true) { target += "?" + query }
        if absoluteForm {
            // RFC 9112 §3.2.2: to a forward proxy, the whole URL (without userinfo or fragment).
            target = "\(origin.scheme)://\(HostText.endpoint(host, port: origin.port))" + target
        }
        var headers = HTTPHeaders()
        headers.reserveCapacity(defaultHeaders.count + request.headers.count + 2)
        headers.add(name: "Host", value: hostField)
        for field in defaultHeaders where !request.headers.contains(field.name) && !Self.isManaged(field.name) {
            headers.add(name: field.name, value: field.value)
        }
        for field in request.headers where !Self.isManaged(field.name) {
            // The engine writes `Expect: 100-continue` itself; an empty one only said "none".
            if field.name.caseInsensitiveEquals("Expect"), framing.expectContinue || field.value.trimmingOWS.isEmpty { continue }
            headers.add(name: field.name, value: field.value)
        }
        switch framing.length {
        case .none: break
        case .known(let length): headers.add(name: "Content-Length", value: String(length))
        case .chunked: headers.add(name: "Transfer-Encoding", value: "chunked")
        }
        if framing.expectContinue { headers.add(name: "Expect", value: "100-continue") }
        return HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.sentMethod),
                               uri: target, headers: headers)
    }

    private static func isManaged(_ name: String) -> Bool {
        managedFields.contains { $0.caseInsensitiveEquals(name) }
    }
}
