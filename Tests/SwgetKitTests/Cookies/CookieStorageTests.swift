import Foundation
import Testing
@testable import SwgetKit

@Suite("Cookie storage model (RFC 6265bis §5.7, §5.8.3)")
struct CookieStorageTests {
    let clock = CookieTestClock()

    // MARK: Domain and path

    @Test func hostOnlyCookieWithDefaultPath() throws {
        let store = CookieStorage.testing(clock)
        let cookie = try #require(store.set("a=1", at: "http://www.example.com/dir/page").cookie)
        #expect(cookie.domain == "www.example.com" && cookie.hostOnly && cookie.path == "/dir")
        #expect(cookie.creationTime == clock.now && cookie.isSessionCookie)
        #expect(store.header("http://www.example.com/dir/x") == "a=1")
        #expect(store.header("http://www.example.com/dir") == "a=1")
        #expect(store.header("http://WWW.EXAMPLE.COM:8080/dir/") == "a=1")        // any port, any case
        #expect(store.header("http://www.example.com/directory") == "")
        #expect(store.header("http://www.example.com/") == "")
        #expect(store.header("http://sub.www.example.com/dir/x") == "")           // host-only
        #expect(store.header("http://example.com/dir/x") == "")
    }

    @Test func domainCookie() throws {
        let store = CookieStorage.testing(clock)
        let cookie = try #require(store.set("a=1; Domain=.Example.com; Path=/", at: "http://www.example.com/").cookie)
        #expect(cookie.domain == "example.com" && !cookie.hostOnly)
        for host in ["example.com", "www.example.com", "a.b.example.com"] {
            #expect(store.header("http://\(host)/x") == "a=1", "\(host)")
        }
        for host in ["notexample.com", "example.org", "com"] {
            #expect(store.header("http://\(host)/x") == "", "\(host)")
        }
    }

    struct DomainCase: CustomTestStringConvertible, Sendable {
        let header: String
        let url: String
        let outcome: String   // "host-only", "domain", or a rejection description
        var testDescription: String { "\(header) from \(url)" }
    }

    static let domainCases: [DomainCase] = [
        DomainCase(header: "a=1; Domain=example.com", url: "http://www.example.com/", outcome: "domain"),
        DomainCase(header: "a=1; Domain=www.example.com", url: "http://www.example.com/", outcome: "domain"),
        DomainCase(header: "a=1; Domain=other.com", url: "http://www.example.com/", outcome: CookieRejection.domainMismatch("other.com").description),
        DomainCase(header: "a=1; Domain=sub.www.example.com", url: "http://www.example.com/", outcome: CookieRejection.domainMismatch("sub.www.example.com").description),
        DomainCase(header: "a=1; Domain=ample.com", url: "http://example.com/", outcome: CookieRejection.domainMismatch("ample.com").description),
        DomainCase(header: "a=1; Domain=com", url: "http://example.com/", outcome: CookieRejection.publicSuffix("com").description),
        DomainCase(header: "a=1; Domain=co.uk", url: "http://www.example.co.uk/", outcome: CookieRejection.publicSuffix("co.uk").description),
        DomainCase(header: "a=1; Domain=.CO.UK", url: "http://www.example.co.uk/", outcome: CookieRejection.publicSuffix("co.uk").description),
        DomainCase(header: "a=1; Domain=example.co.uk", url: "http://www.example.co.uk/", outcome: "domain"),
        DomainCase(header: "a=1; Domain=github.io", url: "https://foo.github.io/", outcome: CookieRejection.publicSuffix("github.io").description),
        DomainCase(header: "a=1; Domain=foo.github.io", url: "https://foo.github.io/", outcome: "domain"),
        DomainCase(header: "a=1; Domain=localhost", url: "http://localhost/", outcome: "host-only"),     // the suffix is the host
        DomainCase(header: "a=1; Domain=localhost", url: "http://app.localhost/", outcome: CookieRejection.publicSuffix("localhost").description),
        DomainCase(header: "a=1; Domain=bücher.de", url: "http://www.bücher.de/", outcome: CookieRejection.nonASCIIDomain.description),
        DomainCase(header: "a=1; Domain=.", url: "http://example.com/", outcome: "host-only"),
        DomainCase(header: "a=1; Domain=", url: "http://example.com/", outcome: "host-only"),
        DomainCase(header: "a=1; Domain=1.2.3.4", url: "http://1.2.3.4/", outcome: "domain"),
        DomainCase(header: "a=1; Domain=2.3.4", url: "http://1.2.3.4/", outcome: CookieRejection.domainMismatch("2.3.4").description),
        DomainCase(header: "a=1; Domain=example.com.", url: "http://www.example.com/", outcome: CookieRejection.domainMismatch("example.com.").description),
    ]

    @Test(arguments: domainCases)
    func domainAttribute(_ c: DomainCase) {
        let outcome = CookieStorage.testing(clock).set(c.header, at: c.url)
        switch outcome {
        case .stored(let cookie): #expect((cookie.hostOnly ? "host-only" : "domain") == c.outcome)
        case .rejected(let reason): #expect(reason.description == c.outcome)
        case .deleted: Issue.record("unexpected deletion")
        }
    }

    @Test func ipAddressCookiesMatchExactly() {
        let store = CookieStorage.testing(clock)
        store.set("a=1; Domain=10.1.2.3", at: "http://10.1.2.3/")
        #expect(store.header("http://10.1.2.3/") == "a=1")
        #expect(store.header("http://1.2.3/") == "" && store.header("http://110.1.2.3/") == "")
    }

    @Test func pathAttribute() {
        let store = CookieStorage.testing(clock)
        store.set("a=1; Path=/docs", at: "http://h.example/")
        store.set("b=2; Path=docs", at: "http://h.example/x/y")                  // relative: default path /x
        #expect(store.header("http://h.example/docs/web") == "a=1")
        #expect(store.header("http://h.example/docsets") == "")
        #expect(store.header("http://h.example/x/z") == "b=2")
    }

    // MARK: Secure

    @Test func secureCookies() {
        let store = CookieStorage.testing(clock)
        #expect(store.set("s=1; Secure", at: "http://example.com/").rejection == .secureFromInsecureOrigin)
        #expect(store.set("s=1; Secure", at: "https://example.com/").isStored)
        #expect(store.header("https://example.com/") == "s=1")
        #expect(store.header("http://example.com/") == "")
        #expect(store.header("wss://example.com/") == "s=1")
    }

    @Test func loopbackCountsAsSecureUnlessDisabled() {
        let trusting = CookieStorage.testing(clock)
        #expect(trusting.set("s=1; Secure", at: "http://127.0.0.1:8080/").isStored)
        #expect(trusting.header("http://127.0.0.1:9090/") == "s=1")
        let strict = CookieStorage.testing(clock, loopbackIsSecure: false)
        #expect(strict.set("s=1; Secure", at: "http://127.0.0.1:8080/").rejection == .secureFromInsecureOrigin)
        #expect(strict.set("s=1; Secure", at: "http://localhost/").rejection == .secureFromInsecureOrigin)
    }

    struct ShadowCase: CustomTestStringConvertible, Sendable {
        let header: String
        let url: String
        let rejected: Bool
        var testDescription: String { "\(header) from \(url)" }
    }

    /// §5.7 step 16 with a stored `s=secret; Secure; Domain=example.com; Path=/app`.
    static let shadowCases: [ShadowCase] = [
        ShadowCase(header: "s=evil", url: "http://example.com/app/x", rejected: true),              // default path /app
        ShadowCase(header: "s=evil; Path=/app", url: "http://www.example.com/", rejected: true),     // subdomain, same path
        ShadowCase(header: "s=evil; Path=/app/deeper", url: "http://www.example.com/", rejected: true),
        ShadowCase(header: "s=evil; Domain=example.com; Path=/app", url: "http://example.com/", rejected: true),
        ShadowCase(header: "s=evil; Path=/", url: "http://example.com/", rejected: false),          // "/" does not path-match /app
        ShadowCase(header: "s=evil; Path=/application", url: "http://example.com/", rejected: false),
        ShadowCase(header: "t=fine; Path=/app", url: "http://example.com/", rejected: false),       // another name
        ShadowCase(header: "S=fine; Path=/app", url: "http://example.com/", rejected: false),       // names are case-sensitive
        ShadowCase(header: "s=evil; Path=/app", url: "http://other.com/", rejected: false),         // unrelated domain
        ShadowCase(header: "s=fine; Path=/app", url: "https://example.com/", rejected: false),      // secure origin may
    ]

    @Test(arguments: shadowCases)
    func insecureOriginCannotShadowSecureCookie(_ c: ShadowCase) {
        let store = CookieStorage.testing(clock)
        #expect(store.set("s=secret; Secure; Domain=example.com; Path=/app", at: "https://www.example.com/").isStored)
        let outcome = store.set(c.header, at: c.url)
        #expect((outcome.rejection == .wouldShadowSecureCookie) == c.rejected)
        #expect(store.header("https://example.com/app/").contains("s=secret"))
    }

    @Test func secureCookieSetOnSubdomainBlocksParentShadow() {
        let store = CookieStorage.testing(clock)
        store.set("s=secret; Secure; Path=/", at: "https://a.example.com/")                     // host-only a.example.com
        #expect(store.set("s=evil; Domain=example.com; Path=/", at: "http://b.example.com/").rejection == .wouldShadowSecureCookie)
    }

    @Test func expiredSecureCookieNoLongerBlocks() {
        let store = CookieStorage.testing(clock)
        store.set("s=secret; Secure; Max-Age=10", at: "https://example.com/")
        clock.advance(11)
        #expect(store.set("s=new", at: "http://example.com/").isStored)
    }

    // MARK: Prefixes and SameSite

    @Test(arguments: [
        ("__Secure-a=1", "https://example.com/", CookieRejection.securePrefix as CookieRejection?),
        ("__Secure-a=1; Secure", "https://example.com/", nil),
        ("__secure-A=1; Secure", "https://example.com/", nil),
        ("__SECURE-a=1", "https://example.com/", .securePrefix),
        ("__Secure-a=1; Secure", "http://example.com/", .secureFromInsecureOrigin),
        ("__Host-a=1; Secure; Path=/", "https://example.com/x/y", nil),
        ("__host-a=1; Secure; Path=/", "https://example.com/", nil),
        ("__Host-a=1; Secure", "https://example.com/", .hostPrefix),                   // no Path attribute
        ("__Host-a=1; Secure; Path=/x", "https://example.com/", .hostPrefix),
        ("__Host-a=1; Secure; Path=x", "https://example.com/", nil),                   // a Path attribute; default path "/"
        ("__Host-a=1; Secure; Path=x", "https://example.com/x/y", .hostPrefix),        // default path "/x"
        ("__Host-a=1; Secure; Path=/; Domain=example.com", "https://example.com/", .hostPrefix),
        ("__Host-a=1; Path=/", "https://example.com/", .hostPrefix),
        ("__Hostile=1", "http://example.com/", nil),
        ("a=1; SameSite=None", "https://example.com/", .sameSiteNoneWithoutSecure),
        ("a=1; SameSite=None; Secure", "https://example.com/", nil),
        ("a=1; SameSite=Strict", "http://example.com/", nil),
    ])
    func prefixesAndSameSite(_ header: String, _ at: String, _ rejection: CookieRejection?) {
        let outcome = CookieStorage.testing(clock).set(header, at: at)
        #expect(outcome.rejection == rejection)
        if rejection == nil { #expect(outcome.isStored) }
    }

    // MARK: Replacement, expiry, order

    @Test func replacementKeepsCreationTime() throws {
        let store = CookieStorage.testing(clock)
        let first = try #require(store.set("a=1; Path=/", at: "http://example.com/").cookie)
        clock.advance(100)
        let second = try #require(store.set("a=2; Path=/; HttpOnly", at: "http://example.com/").cookie)
        #expect(second.creationTime == first.creationTime && second.value == "2" && second.httpOnly)
        #expect(store.allCookies.count == 1)
        // Host-only and domain cookies of the same name are different cookies.
        store.set("a=3; Path=/; Domain=example.com", at: "http://example.com/")
        #expect(store.allCookies.count == 2)
    }

    @Test func expiredCookieDeletes() {
        let store = CookieStorage.testing(clock)
        store.set("a=1; Path=/", at: "http://example.com/")
        guard case .deleted = store.set("a=gone; Path=/; Max-Age=0", at: "http://example.com/") else {
            Issue.record("expected a deletion")
            return
        }
        #expect(store.allCookies.isEmpty)
        store.set("b=1; Path=/", at: "http://example.com/")
        store.set("b=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT", at: "http://example.com/")
        #expect(store.allCookies.isEmpty)
        // A deletion with another path leaves the cookie alone.
        store.set("c=1; Path=/", at: "http://example.com/")
        store.set("c=; Path=/x; Max-Age=0", at: "http://example.com/")
        #expect(store.header("http://example.com/") == "c=1")
    }

    @Test func cookiesExpire() {
        let store = CookieStorage.testing(clock)
        store.set("a=1; Max-Age=10", at: "http://example.com/")
        store.set("b=2; Expires=Wed, 09 Jun 2100 10:18:14 GMT", at: "http://example.com/")
        store.set("c=3", at: "http://example.com/")
        clock.advance(9)
        #expect(store.header("http://example.com/") == "a=1; b=2; c=3")
        clock.advance(1)
        #expect(store.header("http://example.com/") == "b=2; c=3")
        #expect(store.allCookies.map(\.name) == ["b", "c"])
        clock.advance(400 * 86_400)                                                 // the 400-day cap
        #expect(store.header("http://example.com/") == "c=3")
    }

    @Test func removeExpiredWithExplicitNow() {
        let store = CookieStorage.testing(clock)
        store.set("a=1; Max-Age=10", at: "http://example.com/")
        store.removeExpired(now: clock.now + 5)
        #expect(store.allCookies.count == 1)
        store.removeExpired(now: clock.now + 60)
        clock.advance(-100)                                                         // gone, even if time went back
        #expect(store.allCookies.isEmpty)
    }

    @Test func headerOrder() {
        let store = CookieStorage.testing(clock)
        store.set("a=1; Path=/", at: "http://example.com/")
        clock.advance(1)
        store.set("b=2; Path=/dir", at: "http://example.com/")
        clock.advance(1)
        store.set("c=3; Path=/", at: "http://example.com/")
        store.set("d=4; Path=/", at: "http://example.com/")                          // same time as c: stored order
        clock.advance(1)
        store.set("e=5; Path=/dir/sub; Domain=example.com", at: "http://www.example.com/")
        store.set("a=9; Path=/", at: "http://example.com/")                          // replaced: keeps its place
        #expect(store.header("http://example.com/dir/sub/x") == "e=5; b=2; a=9; c=3; d=4")
        #expect(store.cookies(for: cookieURL("http://example.com/dir/sub/x")).map(\.name) == ["e", "b", "a", "c", "d"])
    }

    @Test func lastAccessUpdatedBySendingOnly() throws {
        let store = CookieStorage.testing(clock)
        store.set("a=1", at: "http://example.com/")
        clock.advance(50)
        _ = store.cookies(for: cookieURL("http://example.com/"))
        #expect(store.allCookies.first?.lastAccessTime == CookieTestClock.start)
        _ = store.cookieHeader(for: cookieURL("http://example.com/"))
        let cookie = try #require(store.allCookies.first)
        #expect(cookie.lastAccessTime == CookieTestClock.start + 50 && cookie.creationTime == CookieTestClock.start)
    }

    // MARK: Accept policy and management

    @Test func acceptPolicies() {
        let never = CookieStorage.testing(clock, policy: .never)
        #expect(never.set("a=1", at: "http://example.com/").rejection == .acceptPolicy)
        #expect(never.setCookie(Cookie(name: "a", value: "1", domain: "example.com", creationTime: clock.now)).rejection == .acceptPolicy)

        let main = CookieStorage.testing(clock, policy: .onlyFromMainDocumentDomain)
        #expect(main.set("a=1", at: "http://cdn.example.com/", main: "http://www.example.com/").isStored)
        #expect(main.set("a=1", at: "http://tracker.com/", main: "http://www.example.com/").rejection == .acceptPolicy)
        #expect(main.set("a=1", at: "http://b.other.co.uk/", main: "http://a.example.co.uk/").rejection == .acceptPolicy)
        #expect(main.set("a=1", at: "http://127.0.0.1/", main: "http://127.0.0.1:8080/").isStored)
        #expect(main.set("b=1", at: "http://tracker.com/").isStored)                 // its own main document

        let store = CookieStorage.testing(clock)
        store.acceptPolicy = .never
        #expect(store.acceptPolicy == .never)
        #expect(store.set("a=1", at: "http://example.com/").rejection == .acceptPolicy)
    }

    @Test func responsesWithoutHostOrCookies() {
        let store = CookieStorage.testing(clock)
        #expect(store.setCookies(from: ["a=1"], for: cookieURL("file:///tmp/x"), mainDocumentURL: nil) == [.rejected(.noHost)])
        #expect(store.setCookies(from: [], for: cookieURL("http://example.com/"), mainDocumentURL: nil).isEmpty)
        #expect(store.cookieHeader(for: cookieURL("http://example.com/")) == nil)
        let outcomes = store.setCookies(from: ["a=1", "bad\u{1}=x", "b=2"], for: cookieURL("http://example.com/"), mainDocumentURL: nil)
        #expect(outcomes.map(\.isStored) == [true, false, true])
    }

    @Test func sessionCookiesAndRemoval() throws {
        let store = CookieStorage.testing(clock)
        store.set("session=1", at: "http://example.com/")
        store.set("persistent=1; Max-Age=3600", at: "http://example.com/")
        #expect(store.cookiesToSave(keepSessionCookies: false).map(\.name) == ["persistent"])
        #expect(store.cookiesToSave(keepSessionCookies: true).map(\.name) == ["session", "persistent"])
        store.removeSessionCookies()
        #expect(store.allCookies.map(\.name) == ["persistent"])
        let persistent = try #require(store.allCookies.first)
        #expect(store.deleteCookie(persistent))
        #expect(!store.deleteCookie(persistent))
        store.set("x=1", at: "http://a.com/")
        store.set("y=1", at: "http://b.com/")
        store.removeAll()
        #expect(store.allCookies.isEmpty && store.header("http://a.com/") == "")
    }

    @Test(arguments: [
        (Cookie(name: "", value: "1", domain: "example.com", creationTime: CookieTestClock.start), CookieRejection.missingName as CookieRejection?),
        (Cookie(name: "a", value: "1\u{1}", domain: "example.com", creationTime: CookieTestClock.start), .controlCharacter),
        (Cookie(name: "a=b", value: "1", domain: "example.com", creationTime: CookieTestClock.start), .invalidCookie("name or value would break the Cookie header")),
        (Cookie(name: "a", value: "1;2", domain: "example.com", creationTime: CookieTestClock.start), .invalidCookie("name or value would break the Cookie header")),
        (Cookie(name: "a", value: String(repeating: "v", count: 4096), domain: "example.com", creationTime: CookieTestClock.start), .tooLarge),
        (Cookie(name: "a", value: "1", domain: "", creationTime: CookieTestClock.start), .invalidCookie("bad domain")),
        (Cookie(name: "a", value: "1", domain: "exa mple.com", creationTime: CookieTestClock.start), .invalidCookie("bad domain")),
        (Cookie(name: "a", value: "1", domain: "example.com", path: "x", creationTime: CookieTestClock.start), .invalidCookie("bad path")),
        (Cookie(name: "a", value: "1", domain: ".co.uk", hostOnly: false, creationTime: CookieTestClock.start), .publicSuffix("co.uk")),
        (Cookie(name: "a", value: "1", domain: "bücher.de", hostOnly: false, creationTime: CookieTestClock.start), .nonASCIIDomain),
        (Cookie(name: "__Host-a", value: "1", domain: "example.com", hostOnly: false, secure: true, creationTime: CookieTestClock.start), .hostPrefix),
        (Cookie(name: "__Secure-a", value: "1", domain: "example.com", creationTime: CookieTestClock.start), .securePrefix),
        (Cookie(name: "a", value: "1", domain: "bücher.de", creationTime: CookieTestClock.start), nil),          // host-only IDN host
        (Cookie(name: "a", value: "1", domain: ".Example.COM", hostOnly: false, creationTime: CookieTestClock.start), nil),
        (Cookie(name: "a", value: "1", domain: "localhost", creationTime: CookieTestClock.start), nil),
    ])
    func setCookieValidation(_ cookie: Cookie, _ rejection: CookieRejection?) {
        let outcome = CookieStorage.testing(clock).setCookie(cookie)
        #expect(outcome.rejection == rejection)
    }

    @Test func setCookieNormalisesAndMatches() {
        let store = CookieStorage.testing(clock)
        store.setCookie(Cookie(name: "a", value: "1", domain: ".Example.COM", hostOnly: false, creationTime: clock.now))
        #expect(store.allCookies.first?.domain == "example.com")
        #expect(store.header("http://www.example.com/") == "a=1")
        #expect(store.setCookie(Cookie(name: "b", value: "1", domain: "example.com", expiresAt: clock.now - 1,
                                       creationTime: clock.now)) == .deleted(Cookie(name: "b", value: "1", domain: "example.com",
                                                                                   expiresAt: clock.now - 1, creationTime: clock.now)))
    }

    @Test(arguments: [
        ("sid=mine", ["sid", "lang"], "sid=mine; lang=en"),
        ("", ["sid"], "sid=stored"),
        ("a=1; b=2", [], "a=1; b=2"),
        ("custom", ["sid"], "custom; sid=stored"),
        (" x = 1 ;", ["x", "y"], "x = 1 ;; y=2"),
    ])
    func mergedCookieHeader(_ user: String, _ storedNames: [String], _ expected: String) {
        let values = ["sid": "stored", "lang": "en", "x": "9", "y": "2"]
        let stored = storedNames.map { Cookie(name: $0, value: values[$0] ?? "", domain: "h", creationTime: CookieTestClock.start) }
        #expect(CookieStorage.mergedCookieHeader(userValue: user, storedCookies: stored) == expected)
    }

    /// Tasks storing and reading from many threads at once never corrupt the store.
    @Test func concurrentUse() async {
        let store = CookieStorage.testing(clock, limits: .init(perDomain: 50, total: 300))
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for i in 0..<400 {
                        store.setCookies(from: ["c\(i % 97)=\(worker); Path=/"], for: cookieURL("http://h\(worker % 4).example.com/"), mainDocumentURL: nil)
                        _ = store.cookieHeader(for: cookieURL("http://h\(i % 4).example.com/x"))
                    }
                }
            }
        }
        let all = store.allCookies
        #expect(all.count <= 4 * 60 && Set(all.map(\.key)).count == all.count)
        #expect(Dictionary(grouping: all, by: \.domain).values.allSatisfy { $0.count <= 60 })
    }
}
