import Foundation
import Testing
@testable import SwgetKit

@Suite("Cookie limits and eviction (RFC 6265bis §5.7, §6.1)")
struct CookieLimitsTests {
    let clock = CookieTestClock()

    /// A hostile server sends 100,000 distinct cookies in one response: the store keeps between 180 and 216
    /// of them, the newest.
    @Test func hundredThousandCookiesFromOneHost() {
        let store = CookieStorage.testing(clock)
        let headers = (0..<100_000).map { "c\($0)=\($0); Path=/" }
        let outcomes = store.setCookies(from: headers, for: cookieURL("http://evil.example/"), mainDocumentURL: nil)
        #expect(outcomes.allSatisfy { $0.isStored })
        let all = store.allCookies
        #expect((180...216).contains(all.count))
        #expect(Set(all.map(\.name)) == Set((100_000 - all.count..<100_000).map { "c\($0)" }))
        #expect(store.header("http://evil.example/").split(separator: ";").count == all.count)
    }

    /// 20,000 through every domain a host may use: its own name and each parent domain (a host-only
    /// cookie and a Domain cookie for the host share one domain field).
    @Test func manyCookiesOverEveryDomainAHostMayUse() {
        let store = CookieStorage.testing(clock)
        let domains = ["", "; Domain=a.b.example.com", "; Domain=b.example.com", "; Domain=example.com"]
        let headers = (0..<20_000).map { "c\($0)=v\(domains[$0 % 4])" }
        store.setCookies(from: headers, for: cookieURL("http://a.b.example.com/"), mainDocumentURL: nil)
        let byDomain = Dictionary(grouping: store.allCookies, by: \.domain)
        #expect(Set(byDomain.keys) == ["a.b.example.com", "b.example.com", "example.com"])
        #expect(byDomain.values.allSatisfy { (180...216).contains($0.count) })
        #expect(store.header("http://a.b.example.com/").split(separator: ";").count == store.allCookies.count)
    }

    /// Cookies at the size limit: memory stays within limits × 4 KiB.
    @Test func largeCookiesStayBounded() {
        let store = CookieStorage.testing(clock, limits: .init(perDomain: 50, total: 3000))
        let value = String(repeating: "v", count: 4094)
        let headers = (0..<2000).map { "\($0 % 10)=\(value)\($0)" }                 // names 0–9, values 4095–4098 bytes
        let outcomes = store.setCookies(from: headers, for: cookieURL("http://big.example/"), mainDocumentURL: nil)
        #expect(outcomes.filter(\.isStored).count == 10)                               // name + value = 4096
        #expect(outcomes.compactMap(\.rejection) == Array(repeating: .tooLarge, count: 1990))
        let bytes = store.allCookies.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        #expect(store.allCookies.count == 10 && bytes <= 10 * 4096)
    }

    /// Thousands of hosts: the store holds at most total + total / 10 and purges down to total, least
    /// recently used first.
    @Test func totalLimitEvictsLeastRecentlyUsed() {
        let store = CookieStorage.testing(clock, limits: .init(perDomain: 50, total: 100))
        for host in 0..<10 {
            store.setCookies(from: (0..<10).map { "c\($0)=\(host)" }, for: cookieURL("http://h\(host).example/"), mainDocumentURL: nil)
            clock.advance(1)
        }
        #expect(store.allCookies.count == 100)
        _ = store.cookieHeader(for: cookieURL("http://h0.example/"))                          // h0 is now the most recent
        clock.advance(1)
        store.setCookies(from: (0..<10).map { "c\($0)=new" }, for: cookieURL("http://h10.example/"), mainDocumentURL: nil)
        #expect(store.allCookies.count == 110)                                          // within the 10% slack
        store.setCookies(from: ["one=more"], for: cookieURL("http://h11.example/"), mainDocumentURL: nil)
        let hosts = Set(store.allCookies.map(\.domain))
        #expect(store.allCookies.count == 100)
        #expect(hosts.contains("h0.example") && !hosts.contains("h1.example") && hosts.contains("h11.example"))
        #expect(store.allCookies.filter { $0.domain == "h2.example" }.count == 9)       // h1's 10 and one of h2's
    }

    @Test func thousandsOfHostsStayBounded() {
        let store = CookieStorage.testing(clock)
        var largest = 0
        for host in 0..<4000 {
            store.setCookies(from: ["a=1", "b=2"], for: cookieURL("http://h\(host).example/"), mainDocumentURL: nil)
            largest = max(largest, store.storedCount)
        }
        #expect(largest == 3300)
        #expect((3000...3300).contains(store.storedCount))
        #expect(store.header("http://h3999.example/") == "a=1; b=2")
        #expect(store.header("http://h0.example/") == "")
    }

    /// In a full domain, expired cookies go first, then non-secure ones, then the least recently used.
    @Test func domainEvictionOrder() {
        let store = CookieStorage.testing(clock, limits: .init(perDomain: 3, total: 100))
        store.set("secure=1; Secure", at: "https://example.com/")
        clock.advance(1)
        store.set("n1=1", at: "https://example.com/")
        clock.advance(1)
        store.set("n2=1; Max-Age=5", at: "https://example.com/")
        clock.advance(10)                                                               // n2 expired
        store.set("n3=1", at: "https://example.com/")
        #expect(store.allCookies.map(\.name).sorted() == ["n1", "n3", "secure"])
        _ = store.cookieHeader(for: cookieURL("https://example.com/"))                        // all accessed now
        clock.advance(1)
        store.set("n4=1", at: "https://example.com/")                                    // a non-secure one goes
        #expect(store.allCookies.map(\.name).sorted() == ["n3", "n4", "secure"])
        clock.advance(1)
        store.set("s2=1; Secure", at: "https://example.com/")
        store.set("s3=1; Secure", at: "https://example.com/")
        #expect(store.allCookies.map(\.name).sorted() == ["s2", "s3", "secure"])
        clock.advance(1)
        store.set("s4=1; Secure", at: "https://example.com/")                            // oldest secure goes
        #expect(store.allCookies.map(\.name).sorted() == ["s2", "s3", "s4"])
    }

    @Test func limitsAreAtLeastOne() {
        let limits = CookieStorage.Limits(perDomain: 0, total: -5)
        #expect(limits.perDomain == 1 && limits.total == 1)
        #expect(CookieStorage.Limits.default == .init(perDomain: 180, total: 3000))
    }
}
