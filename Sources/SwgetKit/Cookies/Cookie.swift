#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One stored cookie: the record of RFC 6265bis §5.7 ("Storage Model"), the counterpart of NSHTTPCookie
/// in Apple's URL Loading System, as a value.
///
/// A cookie is identified by `name`, `domain`, `hostOnly` and `path` (§5.7 step 23): storing a cookie with
/// the same four replaces the old one. `CookieStorage` creates cookies from Set-Cookie header fields;
/// `NetscapeCookieFile` creates them from cookie files; `init` is for callers that build one by hand.
public struct Cookie: Hashable, Sendable {
    /// The SameSite attribute (RFC 6265bis §4.1.2.7, §5.6.7): NSHTTPCookie's `sameSitePolicy`.
    public enum SameSite: String, Hashable, Sendable, CaseIterable {
        /// `SameSite=Strict`: only sent on same-site requests.
        case strict
        /// `SameSite=Lax`: also sent on top-level navigations with a safe method.
        case lax
        /// `SameSite=None`: sent on cross-site requests too; such a cookie must be Secure (§5.7 step 19).
        case none
        /// No SameSite attribute, or an unrecognised value (the RFC's "Default").
        case unspecified
    }

    /// The cookie's name (NSHTTPCookie `name`). Never empty for cookies this module creates.
    public var name: String
    /// The cookie's value, exactly as the server sent it (NSHTTPCookie `value`); may be empty.
    public var value: String
    /// The domain the cookie belongs to, lowercased and without a leading dot (NSHTTPCookie `domain`,
    /// which writes a leading dot for cookies that are not host-only).
    public var domain: String
    /// True when the cookie is sent to `domain` only, never to its subdomains (the RFC's host-only-flag:
    /// the Set-Cookie had no usable Domain attribute). The Netscape file's include-subdomains field is
    /// its negation.
    public var hostOnly: Bool
    /// The path the cookie applies to, starting with "/" (NSHTTPCookie `path`; §5.1.4 path-match).
    public var path: String
    /// When the cookie expires (NSHTTPCookie `expiresDate`); nil for a session cookie (NSHTTPCookie
    /// `isSessionOnly`), which lasts until the session ends and is saved to files only when asked.
    public var expiresAt: Date?
    /// Sent only over secure connections (NSHTTPCookie `isSecure`; the RFC's secure-only-flag).
    public var secure: Bool
    /// Not exposed to non-HTTP APIs (NSHTTPCookie `isHTTPOnly`); written as `#HttpOnly_` in cookie files.
    public var httpOnly: Bool
    /// The SameSite policy (NSHTTPCookie `sameSitePolicy`).
    public var sameSite: SameSite
    /// When the cookie was first stored; kept when a newer cookie replaces it (§5.7 step 23.3). Orders the
    /// Cookie header among cookies of equal path length (§5.8.3).
    public var creationTime: Date
    /// When the cookie was last sent; the least recently used cookies are evicted first (§5.7).
    public var lastAccessTime: Date

    /// A cookie with every field given. `domain` is stored as given: pass it lowercased and without a
    /// leading dot (`CookieStorage.setCookie` rejects cookies that break these rules).
    public init(name: String, value: String, domain: String, hostOnly: Bool = true, path: String = "/",
                expiresAt: Date? = nil, secure: Bool = false, httpOnly: Bool = false,
                sameSite: SameSite = .unspecified, creationTime: Date, lastAccessTime: Date? = nil) {
        self.name = name
        self.value = value
        self.domain = domain
        self.hostOnly = hostOnly
        self.path = path
        self.expiresAt = expiresAt
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
        self.creationTime = creationTime
        self.lastAccessTime = lastAccessTime ?? creationTime
    }

    /// True for a cookie without an expiry date (NSHTTPCookie `isSessionOnly`).
    public var isSessionCookie: Bool { expiresAt == nil }

    /// True when the cookie's expiry date is at or before `now` (§5.7: "expired" cookies are evicted).
    public func isExpired(at now: Date) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt <= now
    }

    /// The identity under which the store keeps at most one cookie (§5.7 step 23).
    var key: Key { Key(name: name, domain: domain, hostOnly: hostOnly, path: path) }

    /// Name, domain, host-only flag and path: the fields that identify a stored cookie.
    struct Key: Hashable, Sendable {
        /// The cookie's name.
        let name: String
        /// The cookie's domain field.
        let domain: String
        /// The host-only flag.
        let hostOnly: Bool
        /// The cookie's path.
        let path: String
    }
}

/// Why a cookie was not stored. Each case names the RFC 6265bis step that refused it.
public enum CookieRejection: Error, Hashable, Sendable, CustomStringConvertible {
    /// The Set-Cookie value holds a control character other than HTAB (§5.6 step 1).
    case controlCharacter
    /// The cookie has no name: no "=" in the name-value pair, or nothing before it. RFC 6265bis would
    /// store such a "nameless" cookie; curl and wget ignore it, and so do we (a Cookie header item without
    /// a name, and a cookie-file line without one, mean nothing to most servers and tools).
    case missingName
    /// Name and value together exceed 4,096 bytes (§5.6 step 5).
    case tooLarge
    /// The whole Set-Cookie value exceeds `SetCookieParser.maxHeaderBytes` (no valid cookie is that long).
    case headerTooLong
    /// The accept policy refuses cookies from this URL (NSHTTPCookieAcceptPolicy).
    case acceptPolicy
    /// The Domain attribute holds a non-ASCII character (§5.7 step 8).
    case nonASCIIDomain
    /// The Domain attribute is a public suffix other than the request host itself (§5.7 step 9).
    case publicSuffix(String)
    /// The request host does not domain-match the Domain attribute (§5.7 step 10).
    case domainMismatch(String)
    /// A Secure cookie from a connection that is not secure (§5.7 step 13).
    case secureFromInsecureOrigin
    /// A non-secure cookie from an insecure connection would overwrite or shadow a Secure one (§5.7 step 16).
    case wouldShadowSecureCookie
    /// `SameSite=None` without `Secure` (§5.7 step 19).
    case sameSiteNoneWithoutSecure
    /// A `__Secure-` cookie without `Secure` (§5.7 step 20).
    case securePrefix
    /// A `__Host-` cookie that is not Secure, has a Domain attribute, or whose path is not "/" (§5.7 step 21).
    case hostPrefix
    /// A cookie given to `setCookie` whose fields cannot be stored (empty or malformed domain, a path not
    /// starting with "/", a field over its size limit).
    case invalidCookie(String)
    /// The request URL has no host.
    case noHost

    /// One line for logs and debug output.
    public var description: String {
        switch self {
        case .controlCharacter: "contains a control character"
        case .missingName: "has no name"
        case .tooLarge: "name and value exceed 4096 bytes"
        case .headerTooLong: "Set-Cookie value too long"
        case .acceptPolicy: "refused by the cookie accept policy"
        case .nonASCIIDomain: "Domain attribute is not ASCII"
        case .publicSuffix(let domain): "Domain '\(domain)' is a public suffix"
        case .domainMismatch(let domain): "Domain '\(domain)' does not match the request host"
        case .secureFromInsecureOrigin: "Secure cookie from an insecure connection"
        case .wouldShadowSecureCookie: "would overwrite a Secure cookie from an insecure connection"
        case .sameSiteNoneWithoutSecure: "SameSite=None without Secure"
        case .securePrefix: "__Secure- cookie without Secure"
        case .hostPrefix: "__Host- cookie must be Secure, host-only and have Path=/"
        case .invalidCookie(let reason): "invalid cookie: \(reason)"
        case .noHost: "request URL has no host"
        }
    }
}
