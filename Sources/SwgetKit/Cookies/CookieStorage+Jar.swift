#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The storage model of RFC 6265bis §5.7 and the retrieval algorithm of §5.8.3 as a plain value, with
/// "now" passed in. `CookieStorage` wraps one behind a lock.
///
/// Invariants, true after every mutating call:
/// - at most one cookie per `Cookie.Key` (name, domain, host-only flag, path): buckets are keyed by it;
/// - every bucket holds the cookies whose `domain` is its key, is non-empty, and holds at most
///   `limits.perDomain + limits.perDomain / 5` cookies;
/// - `count` is the number of cookies in all buckets, at most `limits.total + limits.total / 10`;
/// - `secureNames[n]` counts the Secure cookies named `n` (absent when zero).
/// Each stored cookie carries a sequence number given when it was first stored (kept on replacement, like
/// its creation time) that breaks ties between equal times, so no order depends on dictionary order.
/// Lookups and replacement cost O(1) per cookie; eviction purges a fifth of the per-domain limit or a
/// tenth of the total at once, so its cost per stored cookie stays constant however many cookies a server
/// sends.
struct CookieJar: Sendable {
    /// A stored cookie and its first-stored sequence number.
    struct Entry: Sendable, Equatable {
        /// The cookie as stored.
        var cookie: Cookie
        /// Its first-stored sequence number.
        var sequence: UInt64
    }

    /// The request-uri, reduced to what §5.7 and §5.8.3 read: canonical host, path, secure or not.
    struct Origin: Sendable, Equatable {
        /// The canonical host (`CookieMatching.canonicalHost`).
        var host: String
        /// The request path, as sent (`CookieMatching.requestPath`).
        var path: String
        /// Whether the connection counts as secure (`CookieMatching.isSecure`).
        var isSecure: Bool
    }

    /// The cookies of one domain field, by identity.
    typealias Bucket = [Cookie.Key: Entry]

    /// The limits enforced on every insertion.
    let limits: CookieStorage.Limits
    /// Every stored cookie, by domain field, then identity.
    private(set) var buckets: [String: Bucket] = [:]
    /// The number of stored cookies (expired ones not yet evicted included).
    private(set) var count = 0
    private var secureNames: [String: Int] = [:]
    private var nextSequence: UInt64 = 0

    /// An empty jar.
    init(limits: CookieStorage.Limits) { self.limits = limits }

    // MARK: - Storing (§5.7)

    /// §5.7 steps 5–24 for a cookie parsed from a Set-Cookie header received from `origin`. The parser
    /// already applied steps 2–4 (a name, no control characters, at most 4,096 bytes).
    mutating func store(_ parsed: SetCookie, from origin: Origin, publicSuffixes: PublicSuffixList,
                        now: Date) -> CookieStorage.Outcome {
        // Steps 7 and 8: the Domain attribute, ASCII only.
        var domainAttribute = parsed.domain ?? ""
        guard !domainAttribute.utf8.contains(where: { $0 >= 0x80 }) else { return .rejected(.nonASCIIDomain) }
        // Step 9: public suffixes, unless the suffix is the host itself (then the cookie is host-only).
        if !domainAttribute.isEmpty, publicSuffixes.isPublicSuffix(domainAttribute) {
            guard domainAttribute == origin.host else { return .rejected(.publicSuffix(domainAttribute)) }
            domainAttribute = ""
        }
        // Step 10: domain-match, or host-only.
        let hostOnly = domainAttribute.isEmpty
        if !hostOnly, !CookieMatching.domainMatches(origin.host, domainAttribute) {
            return .rejected(.domainMismatch(domainAttribute))
        }
        // Steps 5, 6, 11, 12, 14, 17: the new cookie.
        let cookie = Cookie(name: parsed.name, value: parsed.value, domain: hostOnly ? origin.host : domainAttribute,
                            hostOnly: hostOnly, path: parsed.path ?? CookieMatching.defaultPath(origin.path),
                            expiresAt: parsed.expiresAt, secure: parsed.secure, httpOnly: parsed.httpOnly,
                            sameSite: parsed.sameSite, creationTime: now)
        // Step 13.
        if cookie.secure, !origin.isSecure { return .rejected(.secureFromInsecureOrigin) }
        // Step 15 concerns non-HTTP APIs: every cookie here comes from HTTP.
        // Step 16: an insecure origin cannot overwrite or shadow a Secure cookie.
        if !cookie.secure, !origin.isSecure, wouldShadowSecureCookie(cookie, now: now) {
            return .rejected(.wouldShadowSecureCookie)
        }
        // Step 18: every request swget makes is a top-level, same-site navigation, so the cross-site
        // checks never refuse a cookie. Step 19.
        if cookie.sameSite == .none, !cookie.secure { return .rejected(.sameSiteNoneWithoutSecure) }
        // Steps 20, 21 (step 22 concerns nameless cookies, which the parser refused).
        if let rejection = Self.prefixViolation(cookie, hasPathAttribute: parsed.hasPathAttribute) {
            return .rejected(rejection)
        }
        return insert(cookie, now: now)
    }

    /// §5.7 steps 20 and 21: the `__Secure-` and `__Host-` name prefixes.
    static func prefixViolation(_ cookie: Cookie, hasPathAttribute: Bool) -> CookieRejection? {
        if CookieMatching.hasPrefix(cookie.name, caseInsensitive: "__Secure-"), !cookie.secure { return .securePrefix }
        if CookieMatching.hasPrefix(cookie.name, caseInsensitive: "__Host-"),
           !cookie.secure || !cookie.hostOnly || !hasPathAttribute || cookie.path != "/" {
            return .hostPrefix
        }
        return nil
    }

    /// §5.7 step 16: a stored, unexpired Secure cookie with the same name whose domain domain-matches the
    /// new cookie's (or the reverse) and whose path the new cookie's path path-matches.
    func wouldShadowSecureCookie(_ cookie: Cookie, now: Date) -> Bool {
        guard secureNames[cookie.name, default: 0] > 0 else { return false }
        let shadows: (Entry) -> Bool = { entry in
            entry.cookie.secure && entry.cookie.name == cookie.name && !entry.cookie.isExpired(at: now)
                && CookieMatching.pathMatches(cookie.path, entry.cookie.path)
        }
        for (domain, bucket) in buckets
        where CookieMatching.domainMatches(domain, cookie.domain) || CookieMatching.domainMatches(cookie.domain, domain) {
            if bucket.values.contains(where: shadows) { return true }
        }
        return false
    }

    /// §5.7 steps 23–24, then eviction: replaces the cookie with the same key (keeping its creation time
    /// and sequence) or adds `cookie`. A cookie that is already expired only removes the one it replaces.
    mutating func insert(_ cookie: Cookie, now: Date) -> CookieStorage.Outcome {
        var cookie = cookie
        var sequence = nextSequence
        let key = cookie.key
        if let old = removeEntry(key) {
            cookie.creationTime = old.cookie.creationTime
            sequence = old.sequence
        } else {
            nextSequence += 1
        }
        if cookie.isExpired(at: now) { return .deleted(cookie) }
        buckets[cookie.domain, default: [:]][key] = Entry(cookie: cookie, sequence: sequence)
        count += 1
        if cookie.secure { secureNames[cookie.name, default: 0] += 1 }
        if let size = buckets[cookie.domain]?.count, size > limits.perDomain + limits.perDomain / 5 {
            purgeDomain(cookie.domain, now: now)
        }
        if count > limits.total + limits.total / 10 { purgeStore(now: now) }
        return .stored(cookie)
    }

    // MARK: - Retrieval (§5.8.3)

    /// The cookies to send to `origin`, in Cookie-header order: longer paths first, then earlier creation.
    /// With `touch`, their last-access time becomes `now`. Expired cookies met on the way are evicted.
    mutating func cookies(for origin: Origin, now: Date, touch: Bool) -> [Cookie] {
        var found: [Entry] = []
        for domain in CookieMatching.candidateDomains(for: origin.host) {
            // Taken out and put back, so that changing it never copies it.
            guard var bucket = buckets.removeValue(forKey: domain) else { continue }
            for (key, entry) in bucket {
                let cookie = entry.cookie
                if cookie.isExpired(at: now) {
                    bucket[key] = nil
                    forget(cookie)
                    continue
                }
                // A host-only cookie only for its exact host; others by domain-match (the candidates are
                // exactly the domains the host domain-matches).
                guard !cookie.hostOnly || cookie.domain == origin.host,
                      CookieMatching.pathMatches(origin.path, cookie.path),
                      !cookie.secure || origin.isSecure else { continue }
                var sent = entry
                if touch {
                    sent.cookie.lastAccessTime = now
                    bucket[key] = sent
                }
                found.append(sent)
            }
            if !bucket.isEmpty { buckets[domain] = bucket }
        }
        found.sort { a, b in
            let pa = a.cookie.path.utf8.count, pb = b.cookie.path.utf8.count
            if pa != pb { return pa > pb }
            if a.cookie.creationTime != b.cookie.creationTime { return a.cookie.creationTime < b.cookie.creationTime }
            return a.sequence < b.sequence
        }
        return found.map(\.cookie)
    }

    /// Every unexpired cookie, in the order they were first stored.
    func allCookies(now: Date) -> [Cookie] {
        buckets.values.flatMap(\.values).filter { !$0.cookie.isExpired(at: now) }.sorted { $0.sequence < $1.sequence }
            .map(\.cookie)
    }

    // MARK: - Removal and eviction

    /// Removes the cookie stored under `key`; returns it.
    @discardableResult
    mutating func removeEntry(_ key: Cookie.Key) -> Entry? {
        guard let entry = buckets[key.domain]?.removeValue(forKey: key) else { return nil }
        if buckets[key.domain]?.isEmpty == true { buckets[key.domain] = nil }
        forget(entry.cookie)
        return entry
    }

    /// Removes every cookie for which `shouldRemove` is true.
    mutating func removeAll(where shouldRemove: (Cookie) -> Bool) {
        for domain in Array(buckets.keys) {
            guard var bucket = buckets.removeValue(forKey: domain) else { continue }
            for (key, entry) in bucket where shouldRemove(entry.cookie) {
                bucket[key] = nil
                forget(entry.cookie)
            }
            if !bucket.isEmpty { buckets[domain] = bucket }
        }
    }

    /// Keeps `count` and `secureNames` in step with a cookie that left the buckets.
    private mutating func forget(_ cookie: Cookie) {
        count -= 1
        if cookie.secure {
            let left = secureNames[cookie.name, default: 1] - 1
            secureNames[cookie.name] = left > 0 ? left : nil
        }
    }

    /// §5.7 "remove excess cookies" for one domain, run when it holds more than `perDomain + perDomain / 5`:
    /// expired cookies first, then non-secure before secure ones, least recently accessed first, down to
    /// `perDomain`.
    private mutating func purgeDomain(_ domain: String, now: Date) {
        guard var bucket = buckets.removeValue(forKey: domain) else { return }
        let entries = Array(bucket.values)
        let (order, expired) = Self.evictionOrder(entries, now: now, secureLast: true)
        for index in order.prefix(max(expired, entries.count - limits.perDomain)) {
            bucket[entries[index].cookie.key] = nil
            forget(entries[index].cookie)
        }
        if !bucket.isEmpty { buckets[domain] = bucket }
    }

    /// §5.7 "remove excess cookies" for the whole store, run when it holds more than `total + total / 10`:
    /// expired cookies first, then the least recently accessed, down to `total` (no domain is over its limit
    /// here, so the RFC's priorities 2 and 3 are empty).
    private mutating func purgeStore(now: Date) {
        let entries = buckets.values.flatMap(\.values)
        let (order, expired) = Self.evictionOrder(entries, now: now, secureLast: false)
        for index in order.prefix(max(expired, entries.count - limits.total)) { removeEntry(entries[index].cookie.key) }
    }

    /// Indices of `entries` in eviction order, and how many of them are expired: expired cookies first, then
    /// non-secure before secure when `secureLast` (§5.7 priorities 2 and 3, inside a full domain), then
    /// earliest last access (priority 4), then first stored. Sorts scalars, not cookies.
    static func evictionOrder(_ entries: [Entry], now: Date, secureLast: Bool) -> (order: [Int], expired: Int) {
        var expired = 0
        let ranks = entries.map { entry in
            let isExpired = entry.cookie.isExpired(at: now)
            if isExpired { expired += 1 }
            return (expired: isExpired, secure: secureLast && entry.cookie.secure,
                    access: entry.cookie.lastAccessTime.timeIntervalSince1970, sequence: entry.sequence)
        }
        let order = ranks.indices.sorted { i, j in
            let a = ranks[i], b = ranks[j]
            if a.expired != b.expired { return a.expired }
            if a.secure != b.secure { return !a.secure }
            if a.access != b.access { return a.access < b.access }
            return a.sequence < b.sequence
        }
        return (order, expired)
    }
}
