#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The matching rules of RFC 6265bis §5.1.2–§5.1.4 and the "secure connection" notion of §5.7 / §5.8.3,
/// as pure functions over strings.
enum CookieMatching {
    /// The canonicalised host of `url` (§5.1.2): its host, lowercased, IPv6 without brackets; nil when the
    /// URL has no host. IDN hosts are compared in the form the URL holds them (no IDNA conversion here;
    /// `PublicSuffixList` understands both U-labels and punycode).
    static func canonicalHost(_ url: URL) -> String? {
        guard var host = url.host, !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]"), host.count >= 2 { host = String(host.dropFirst().dropLast()) }
        return host.lowercased()
    }

    /// The request path used for path-matching: the URL's path as sent (percent-encoded), "/" when empty.
    static func requestPath(_ url: URL) -> String {
        let path = url.path(percentEncoded: true)
        return path.isEmpty ? "/" : path
    }

    /// §5.1.3: `string` domain-matches `domain` when they are identical, or when `domain` is a suffix of
    /// `string` preceded there by "." and `string` is a host name, not an IP address. Both are expected
    /// canonical (lowercase).
    static func domainMatches(_ string: String, _ domain: String) -> Bool {
        if string == domain { return true }
        guard !domain.isEmpty, string.utf8.count > domain.utf8.count, string.hasSuffix(domain) else { return false }
        let dotIndex = string.utf8.index(string.utf8.endIndex, offsetBy: -(domain.utf8.count + 1))
        return string.utf8[dotIndex] == UInt8(ascii: ".") && !isIPAddress(string)
    }

    /// §5.1.4 default-path: the directory of the request path ("/a/b" → "/a", "/a" → "/", "" → "/").
    static func defaultPath(_ uriPath: String) -> String {
        let bytes = Array(uriPath.utf8)
        guard bytes.first == UInt8(ascii: "/"), let last = bytes.lastIndex(of: UInt8(ascii: "/")), last > 0 else {
            return "/"
        }
        return String(decoding: bytes[..<last], as: UTF8.self)
    }

    /// §5.1.4 path-match: identical, or `cookiePath` a prefix of `requestPath` that ends with "/" or is
    /// followed there by "/". Byte-wise and case-sensitive.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        let request = requestPath.utf8, cookie = cookiePath.utf8
        guard request.count > cookie.count, request.starts(with: cookie) else { return false }
        if cookie.last == UInt8(ascii: "/") { return true }
        return request[request.index(request.startIndex, offsetBy: cookie.count)] == UInt8(ascii: "/")
    }

    /// Whether `url` denotes a "secure" connection. RFC 6265bis leaves the definition to the user agent
    /// and notes that most treat https as secure and `localhost` as trusted. We count `https` and `wss`;
    /// and, when `loopbackIsSecure` is true, plain http to a loopback host (`localhost`, `*.localhost`,
    /// 127.0.0.0/8, `::1`), as browsers' "potentially trustworthy origins" and curl do: no network
    /// attacker sits between a client and its own machine.
    static func isSecure(_ url: URL, loopbackIsSecure: Bool) -> Bool {
        let scheme = url.scheme?.lowercased() ?? ""
        if scheme == "https" || scheme == "wss" { return true }
        guard loopbackIsSecure, let host = canonicalHost(url) else { return false }
        return isLoopback(host)
    }

    /// `localhost`, a name under `.localhost`, an IPv4 address in 127.0.0.0/8, or `::1`.
    static func isLoopback(_ host: String) -> Bool {
        var name = host
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, name, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
        }
        return false
    }

    /// True for an IPv4 literal in dotted-decimal form or any IPv6 literal (with or without brackets).
    static func isIPAddress(_ host: String) -> Bool {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]"), name.count >= 2 { name = String(name.dropFirst().dropLast()) }
        guard name.utf8.count <= 64 else { return false }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 { return true }
        var v6 = in6_addr()
        return inet_pton(AF_INET6, name, &v6) == 1
    }

    /// The domains whose cookies can apply to `host`: itself, then each parent after a "." (none for an IP
    /// address). At most 128 entries, so a hostile host name cannot make retrieval slow.
    static func candidateDomains(for host: String) -> [String] {
        var domains = [host]
        guard !isIPAddress(host) else { return domains }
        var rest = Substring(host)
        while domains.count < 128, let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if rest.isEmpty { break }
            domains.append(String(rest))
        }
        return domains
    }

    /// True when `name` starts with `prefix`, ASCII case-insensitively (the `__Secure-`/`__Host-` tests).
    static func hasPrefix(_ name: String, caseInsensitive prefix: String) -> Bool {
        let a = name.utf8, b = prefix.utf8
        guard a.count >= b.count else { return false }
        return zip(a, b).allSatisfy { x, y in
            x == y || ((x | 0x20) == (y | 0x20) && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)
        }
    }
}
