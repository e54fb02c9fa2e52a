#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// A session's cookie store: the counterpart of NSHTTPCookieStorage in Apple's URL Loading System,
/// following RFC 6265bis (the storage model of §5.7 and the retrieval algorithm of §5.8.3).
///
/// One instance per session, shared by all its tasks; every method is thread-safe (one lock around a
/// `CookieJar` value). The store lives in memory only: loading and saving Netscape cookie files is the
/// caller's (`NetscapeCookieFile`), so an ephemeral session simply never saves.
///
/// What it guarantees:
/// - Cookies are stored from every response (`setCookies(from:for:mainDocumentURL:)`) and the Cookie
///   header is computed per request (`cookieHeader(for:)`), so a redirect chain carries the cookies each
///   hop set, and a cookie never reaches a host or path it does not match.
/// - No cookie for a public suffix (`co.uk`, `github.io`: `PublicSuffixList`) unless it is the request
///   host itself, which makes the cookie host-only.
/// - `Secure` cookies are only set from, and only sent over, secure connections, and an insecure
///   connection cannot overwrite or shadow one. "Secure" means https or wss, and plain http to a loopback
///   host when `loopbackIsSecure` is true (the default, as browsers and curl do; pass false to treat
///   http://127.0.0.1 like any other http origin).
/// - `__Secure-` and `__Host-` prefixes are enforced; `SameSite=None` needs `Secure`.
/// - Memory is bounded whatever servers send: name plus value at most 4,096 bytes, attribute values at
///   most 1,024, about `limits.perDomain` cookies per domain and `limits.total` in all (see `Limits`),
///   expired cookies evicted first, then the least recently used.
///
/// Every request swget makes counts as a top-level, same-site navigation, so SameSite never withholds a
/// cookie; `sameSite` is stored and saved for completeness. "Now" comes from `clock`, so tests can pin it.
public final class CookieStorage: Sendable {
    /// The process-wide store that default and background sessions share (ephemeral sessions
    /// get one of their own).
    public static let shared = CookieStorage()

    /// When cookies are accepted (NSHTTPCookieAcceptPolicy).
    public enum AcceptPolicy: Sendable, Hashable {
        /// Store every cookie the RFC allows.
        case always
        /// Store nothing, not even through `setCookie`; cookies already stored are still sent.
        case never
        /// Store cookies only from URLs in the same site (registrable domain, or the same host when there is
        /// none) as `mainDocumentURL`; a nil main document URL means the request is its own main document.
        case onlyFromMainDocumentDomain
    }

    /// How many cookies the store keeps. RFC 6265bis §6.1 asks for room for at least 50 cookies per domain
    /// and 3,000 in all; these numbers are that room. The store purges only when a count exceeds its limit
    /// by a fifth (per domain) or a tenth (in all), and then down to the limit, so eviction costs O(1) per
    /// stored cookie however hostile the server, and memory stays below 1.1 × `total` × 4 KiB.
    public struct Limits: Sendable, Hashable {
        /// Cookies with one `domain` field (§5.7). Beyond `perDomain + perDomain / 5`, that domain's expired
        /// cookies go first, then non-secure before secure ones, least recently used first, down to
        /// `perDomain`.
        public var perDomain: Int
        /// Cookies in the whole store. Beyond `total + total / 10`, expired cookies go first, then the least
        /// recently used, down to `total`.
        public var total: Int

        /// Limits of at least one cookie each.
        public init(perDomain: Int = 180, total: Int = 3000) {
            self.perDomain = max(1, perDomain)
            self.total = max(1, total)
        }

        /// 180 per domain (as Chrome and Firefox), 3,000 in all.
        public static let `default` = Limits()
    }

    /// What happened to one cookie offered to the store.
    public enum Outcome: Sendable, Hashable {
        /// The cookie is stored (replacing one with the same name, domain, host-only flag and path, whose
        /// creation time it keeps).
        case stored(Cookie)
        /// The cookie was already expired: the cookie it would replace, if any, is removed; nothing is stored.
        case deleted(Cookie)
        /// The cookie was refused, for the reason given.
        case rejected(CookieRejection)
    }

    /// The limits this store enforces.
    public let limits: Limits
    /// The public suffix list used to refuse supercookies.
    public let publicSuffixes: PublicSuffixList
    /// Whether plain http to a loopback host counts as a secure connection (see the type's description).
    public let loopbackIsSecure: Bool

    private let clock: @Sendable () -> Date
    private let state: Mutex<State>

    private struct State: Sendable {
        var jar: CookieJar
        var acceptPolicy: AcceptPolicy
    }

    /// An empty store. `clock` supplies "now" for creation, access and expiry times.
    public init(acceptPolicy: AcceptPolicy = .always, limits: Limits = .default,
                publicSuffixes: PublicSuffixList = .system, loopbackIsSecure: Bool = true,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.limits = limits
        self.publicSuffixes = publicSuffixes
        self.loopbackIsSecure = loopbackIsSecure
        self.clock = clock
        self.state = Mutex(State(jar: CookieJar(limits: limits), acceptPolicy: acceptPolicy))
    }

    /// The accept policy (NSHTTPCookieStorage `cookieAcceptPolicy`); changing it affects later responses only.
    public var acceptPolicy: AcceptPolicy {
        get { state.withLock { $0.acceptPolicy } }
        set { state.withLock { $0.acceptPolicy = newValue } }
    }

    // MARK: - From responses

    /// Stores the cookies of a response's Set-Cookie field values (one value per cookie, in order),
    /// received for `url` (NSHTTPCookieStorage `setCookies(_:for:mainDocumentURL:)`). Returns one outcome
    /// per value, in order; a value that is refused changes nothing.
    @discardableResult
    public func setCookies(from headerValues: [String], for url: URL, mainDocumentURL: URL?) -> [Outcome] {
        guard !headerValues.isEmpty else { return [] }
        let now = clock()
        guard let host = CookieMatching.canonicalHost(url) else {
            return headerValues.map { _ in .rejected(.noHost) }
        }
        let policy = acceptPolicy
        if policy == .never || (policy == .onlyFromMainDocumentDomain && !isSameSite(url, mainDocumentURL)) {
            return headerValues.map { _ in .rejected(.acceptPolicy) }
        }
        let origin = CookieJar.Origin(host: host, path: CookieMatching.requestPath(url),
                                      isSecure: CookieMatching.isSecure(url, loopbackIsSecure: loopbackIsSecure))
        let parsed = headerValues.map { value in Result { () throws(CookieRejection) in try SetCookieParser.parse(value, now: now) } }
        return state.withLock { state in
            parsed.map { result in
                switch result {
                case .success(let cookie): state.jar.store(cookie, from: origin, publicSuffixes: publicSuffixes, now: now)
                case .failure(let rejection): .rejected(rejection)
                }
            }
        }
    }

    /// True when `url` is in the same site as `mainDocumentURL` (or that is nil).
    private func isSameSite(_ url: URL, _ mainDocumentURL: URL?) -> Bool {
        guard let mainDocumentURL else { return true }
        guard let host = CookieMatching.canonicalHost(url), let main = CookieMatching.canonicalHost(mainDocumentURL) else {
            return false
        }
        return (publicSuffixes.registrableDomain(host) ?? host) == (publicSuffixes.registrableDomain(main) ?? main)
    }

    // MARK: - For requests

    /// The Cookie header value for a request to `url` (§5.8.3): the matching cookies as `name=value` joined
    /// by "; ", longer paths first, then earlier creation; nil when none match. Updates their last-access time.
    public func cookieHeader(for url: URL) -> String? {
        // Most sessions hold no cookie at all: no URL to take apart for every request.
        guard state.withLock({ $0.jar.count > 0 }), let origin = origin(of: url) else { return nil }
        let now = clock()
        let cookies = state.withLock { $0.jar.cookies(for: origin, now: now, touch: true) }
        return Self.headerValue(for: cookies)
    }

    /// The cookies a request to `url` would send, in header order (NSHTTPCookieStorage `cookies(for:)`).
    /// Does not count as an access.
    public func cookies(for url: URL) -> [Cookie] {
        guard let origin = origin(of: url) else { return [] }
        let now = clock()
        return state.withLock { $0.jar.cookies(for: origin, now: now, touch: false) }
    }

    /// `cookies` as a Cookie header value (`a=1; b=2`), nil when empty.
    public static func headerValue(for cookies: [Cookie]) -> String? {
        cookies.isEmpty ? nil : cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// The Cookie header to send when the caller gave one of its own (`-H 'Cookie: …'`): the caller's
    /// value exactly as given, followed by the stored cookies whose names it does not already name, so a
    /// user's explicit cookie wins over a stored one of the same name and nothing is sent twice.
    public static func mergedCookieHeader(userValue: String, storedCookies: [Cookie]) -> String {
        let userNames = Set(userValue.split(separator: ";").compactMap { item -> String? in
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = pair.first.map { $0.trimmingOWS } ?? ""
            return name.isEmpty ? nil : name
        })
        let rest = storedCookies.filter { !userNames.contains($0.name) }
        guard let stored = headerValue(for: rest) else { return userValue }
        let user = userValue.trimmingOWS
        return user.isEmpty ? stored : "\(user); \(stored)"
    }

    private func origin(of url: URL) -> CookieJar.Origin? {
        guard let host = CookieMatching.canonicalHost(url) else { return nil }
        return CookieJar.Origin(host: host, path: CookieMatching.requestPath(url),
                                isSecure: CookieMatching.isSecure(url, loopbackIsSecure: loopbackIsSecure))
    }

    // MARK: - Managing the store

    /// How many cookies are held, expired ones not yet evicted included.
    var storedCount: Int { state.withLock { $0.jar.count } }

    /// Every unexpired cookie, in the order first stored (NSHTTPCookieStorage `cookies`).
    public var allCookies: [Cookie] {
        let now = clock()
        return state.withLock { $0.jar.allCookies(now: now) }
    }

    /// The cookies to write to a cookie file: every unexpired cookie, session cookies only when
    /// `keepSessionCookies` (wget's `--keep-session-cookies`).
    public func cookiesToSave(keepSessionCookies: Bool) -> [Cookie] {
        allCookies.filter { keepSessionCookies || !$0.isSessionCookie }
    }

    /// Stores `cookie` as given, e.g. one loaded from a cookie file (NSHTTPCookieStorage `setCookie(_:)`).
    /// Its domain is lowercased and loses a leading dot. Refused when the accept policy is `.never`, or when
    /// it breaks what a Set-Cookie could never produce: an empty or malformed name, domain or path, a value
    /// with ";" or control characters, name plus value over 4,096 bytes, a domain or path over 1,024 bytes,
    /// a non-host-only cookie for a public suffix or with a non-ASCII domain, a violated `__Secure-`/`__Host-`
    /// prefix. An expired cookie deletes the cookie it would replace.
    @discardableResult
    public func setCookie(_ cookie: Cookie) -> Outcome {
        var cookie = cookie
        cookie.domain = cookie.domain.lowercased()
        if cookie.domain.hasPrefix(".") { cookie.domain.removeFirst() }
        if let rejection = validate(cookie) { return .rejected(rejection) }
        let now = clock()
        return state.withLock { state in
            guard state.acceptPolicy != .never else { return .rejected(.acceptPolicy) }
            return state.jar.insert(cookie, now: now)
        }
    }

    private func validate(_ cookie: Cookie) -> CookieRejection? {
        let name = cookie.name.utf8, value = cookie.value.utf8, domain = cookie.domain.utf8, path = cookie.path.utf8
        let bad: (UInt8) -> Bool = SetCookieParser.isForbiddenControl
        guard !name.isEmpty else { return .missingName }
        guard !name.contains(where: bad), !value.contains(where: bad) else { return .controlCharacter }
        guard name.count + value.count <= SetCookieParser.maxNameValueBytes else { return .tooLarge }
        guard !name.contains(UInt8(ascii: "=")), !name.contains(UInt8(ascii: ";")), !value.contains(UInt8(ascii: ";")),
              name.first != 0x20, name.last != 0x20, name.first != 0x09, name.last != 0x09 else {
            return .invalidCookie("name or value would break the Cookie header")
        }
        guard !domain.isEmpty, domain.count <= SetCookieParser.maxAttributeValueBytes,
              !domain.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: "/") }) else {
            return .invalidCookie("bad domain")
        }
        guard path.first == UInt8(ascii: "/"), path.count <= SetCookieParser.maxAttributeValueBytes,
              !path.contains(where: { bad($0) || $0 == UInt8(ascii: ";") }) else {
            return .invalidCookie("bad path")
        }
        if !cookie.hostOnly {
            guard !domain.contains(where: { $0 >= 0x80 }) else { return .nonASCIIDomain }
            if publicSuffixes.isPublicSuffix(cookie.domain) { return .publicSuffix(cookie.domain) }
        }
        return CookieJar.prefixViolation(cookie, hasPathAttribute: true)
    }

    /// Removes the cookie with `cookie`'s name, domain, host-only flag and path (NSHTTPCookieStorage
    /// `deleteCookie(_:)`); returns whether one was stored.
    @discardableResult
    public func deleteCookie(_ cookie: Cookie) -> Bool {
        var domain = cookie.domain.lowercased()
        if domain.hasPrefix(".") { domain.removeFirst() }
        let key = Cookie.Key(name: cookie.name, domain: domain, hostOnly: cookie.hostOnly, path: cookie.path)
        return state.withLock { $0.jar.removeEntry(key) != nil }
    }

    /// Removes every cookie (NSHTTPCookieStorage `removeCookies(since:)` with the distant past).
    public func removeAll() {
        state.withLock { $0.jar.removeAll { _ in true } }
    }

    /// Evicts the cookies expired at `now` (the clock's time when nil); §5.7 requires it, and lookups do
    /// it for the cookies they meet.
    public func removeExpired(now: Date? = nil) {
        let now = now ?? clock()
        state.withLock { $0.jar.removeAll { $0.isExpired(at: now) } }
    }

    /// Ends "the current session" (§5.7): removes every session cookie.
    public func removeSessionCookies() {
        state.withLock { $0.jar.removeAll { $0.isSessionCookie } }
    }
}
