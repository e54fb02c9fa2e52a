import Foundation
import Testing
@testable import SwgetKit

@Suite("HSTS: known hosts store (RFC 6797 §8)")
struct HSTSStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    static func store(capacity: Int = 100) -> HSTSStore {
        HSTSStore(capacity: capacity, clock: { t0 })
    }

    /// example.com with includeSubDomains, exact.org without.
    static func seeded() -> HSTSStore {
        let store = store()
        store.learn(header: "max-age=1000; includeSubDomains", host: "Example.COM", overTrustedTLS: true)
        store.learn(header: "max-age=1000", host: "exact.org", overTrustedTLS: true)
        return store
    }

    struct UpgradeCase: CustomTestStringConvertible, Sendable {
        let url: String
        let expected: String?
        var testDescription: String { url }
    }

    static let upgrades: [UpgradeCase] = [
        UpgradeCase(url: "http://example.com/", expected: "https://example.com/"),
        UpgradeCase(url: "HTTP://EXAMPLE.com./a?b=1#c", expected: "https://EXAMPLE.com./a?b=1#c"),
        UpgradeCase(url: "http://sub.example.com:80/x", expected: "https://sub.example.com:443/x"),
        UpgradeCase(url: "http://deep.sub.example.com:8080/x", expected: "https://deep.sub.example.com:8080/x"),
        UpgradeCase(url: "http://user:pw@example.com/p", expected: "https://user:pw@example.com/p"),
        UpgradeCase(url: "http://exact.org", expected: "https://exact.org"),
        UpgradeCase(url: "http://www.exact.org/", expected: nil),
        UpgradeCase(url: "https://example.com/", expected: nil),
        UpgradeCase(url: "ftp://example.com/", expected: nil),
        UpgradeCase(url: "http://notexample.com/", expected: nil),
        UpgradeCase(url: "http://example.com.evil.net/", expected: nil),
        UpgradeCase(url: "http://com/", expected: nil),
        UpgradeCase(url: "http://127.0.0.1/", expected: nil),
        UpgradeCase(url: "http://[::1]/", expected: nil),
        UpgradeCase(url: "file:///etc/passwd", expected: nil),
    ]

    @Test(arguments: upgrades)
    func upgrade(_ c: UpgradeCase) throws {
        let url = try #require(URL(string: c.url))
        #expect(Self.seeded().upgrade(url)?.absoluteString == c.expected)
    }

    struct LearnCase: CustomTestStringConvertible, Sendable {
        let host: String
        let header: String
        let trusted: Bool
        let outcome: HSTSStore.LearnOutcome
        var testDescription: String { "\(host) \(header) trusted=\(trusted)" }
    }

    static let learnCases: [LearnCase] = [
        LearnCase(host: "a.example", header: "max-age=10", trusted: true, outcome: .stored),
        LearnCase(host: "a.example", header: "max-age=10", trusted: false, outcome: .ignored(.notOverTrustedTLS)),
        LearnCase(host: "127.0.0.1", header: "max-age=10", trusted: true, outcome: .ignored(.ipAddress)),
        LearnCase(host: "[::1]", header: "max-age=10", trusted: true, outcome: .ignored(.ipAddress)),
        LearnCase(host: "::ffff:10.0.0.1", header: "max-age=10", trusted: true, outcome: .ignored(.ipAddress)),
        LearnCase(host: "10.1", header: "max-age=10", trusted: true, outcome: .ignored(.ipAddress)),
        LearnCase(host: "0x7f.0.0.1", header: "max-age=10", trusted: true, outcome: .ignored(.ipAddress)),
        LearnCase(host: "bücher.de", header: "max-age=10", trusted: true, outcome: .ignored(.invalidHost)),
        LearnCase(host: "a..example", header: "max-age=10", trusted: true, outcome: .ignored(.invalidHost)),
        LearnCase(host: "", header: "max-age=10", trusted: true, outcome: .ignored(.invalidHost)),
        LearnCase(host: "evil\u{0}.example", header: "max-age=10", trusted: true, outcome: .ignored(.invalidHost)),
        LearnCase(host: String(repeating: "a", count: 64) + ".example", header: "max-age=10", trusted: true, outcome: .ignored(.invalidHost)),
        LearnCase(host: "a.example", header: "max-age=10; max-age=10", trusted: true,
                  outcome: .ignored(.invalidHeader(.duplicateDirective("max-age")))),
        LearnCase(host: "a.example", header: "max-age=0", trusted: true, outcome: .ignored(.nothingToRemove)),
    ]

    @Test(arguments: learnCases)
    func learn(_ c: LearnCase) {
        let store = Self.store()
        #expect(store.learn(header: c.header, host: c.host, overTrustedTLS: c.trusted) == c.outcome)
        #expect(store.count == (c.outcome == .stored ? 1 : 0))
        #expect(store.hasChanges == (c.outcome == .stored))
    }

    @Test func maxAgeZeroRemovesOnlyTheCongruentEntry() throws {
        let store = Self.seeded()
        #expect(store.learn(header: "max-age=0", host: "sub.example.com", overTrustedTLS: true) == .ignored(.nothingToRemove))
        #expect(store.upgrade(try #require(URL(string: "http://sub.example.com/"))) != nil)
        #expect(store.learn(header: "max-age=0", host: "example.com", overTrustedTLS: true) == .removed)
        #expect(store.upgrade(try #require(URL(string: "http://sub.example.com/"))) == nil)
        #expect(store.entries().map(\.host) == ["exact.org"])
    }

    @Test func aNewHeaderReplacesTheEntry() throws {
        let store = Self.seeded()
        let later = Self.t0.addingTimeInterval(500)
        #expect(store.learn(header: "max-age=2000", host: "example.com", overTrustedTLS: true, now: later) == .updated)
        #expect(store.upgrade(try #require(URL(string: "http://sub.example.com/"))) == nil)
        let entry = try #require(store.policy(for: "example.com"))
        #expect(entry.created == 1_700_000_500 && entry.maxAge == 2000 && !entry.includeSubDomains)
        // Over plain HTTP nothing changes, even max-age=0.
        #expect(store.learn(header: "max-age=0", host: "example.com", overTrustedTLS: false) == .ignored(.notOverTrustedTLS))
        #expect(store.policy(for: "example.com") != nil)
    }

    @Test func aSubdomainGetsItsOwnEntry() {
        let store = Self.seeded()
        #expect(store.learn(header: "max-age=5", host: "api.example.com", overTrustedTLS: true) == .stored)
        #expect(store.policy(for: "api.example.com")?.host == "api.example.com")
        #expect(store.policy(for: "x.api.example.com")?.host == "example.com")
    }

    @Test func entriesExpire() throws {
        let store = Self.store()
        store.learn(header: "max-age=100", host: "example.com", overTrustedTLS: true)
        let url = try #require(URL(string: "http://example.com/"))
        #expect(store.upgrade(url, now: Self.t0.addingTimeInterval(100)) != nil)
        store.markSaved()
        #expect(store.upgrade(url, now: Self.t0.addingTimeInterval(101)) == nil)
        #expect(store.count == 0)
        #expect(store.hasChanges)
        #expect(store.entries(now: Self.t0).isEmpty)
    }

    @Test func theSoonestExpiringEntryIsEvicted() {
        let store = Self.store(capacity: 3)
        store.learn(header: "max-age=300", host: "a.example", overTrustedTLS: true)
        store.learn(header: "max-age=100", host: "b.example", overTrustedTLS: true)
        store.learn(header: "max-age=200", host: "c.example", overTrustedTLS: true)
        #expect(store.learn(header: "max-age=50", host: "d.example", overTrustedTLS: true) == .stored)
        #expect(store.entries().map(\.host) == ["a.example", "c.example", "d.example"])
        // Expired entries go first, whatever their lifetime was.
        let later = Self.t0.addingTimeInterval(60)
        #expect(store.learn(header: "max-age=1", host: "e.example", overTrustedTLS: true, now: later) == .stored)
        #expect(store.entries(now: later).map(\.host) == ["a.example", "c.example", "e.example"])
        #expect(store.count == 3)
    }

    @Test func loadMergesByCreationTime() {
        let store = Self.store(capacity: 3)
        store.learn(header: "max-age=1000", host: "a.example", overTrustedTLS: true)
        store.markSaved()
        typealias Entry = HSTSStore.Entry
        let taken = store.load([
            Entry(host: "a.example", includeSubDomains: true, created: 1_699_999_000, maxAge: 5000),   // older: loses
            Entry(host: "B.Example.", port: 8443, includeSubDomains: true, created: 1_699_999_000, maxAge: 5000),
            Entry(host: "b.example", includeSubDomains: false, created: 1_699_999_500, maxAge: 5000),  // newer: wins
            Entry(host: "old.example", includeSubDomains: false, created: 1_600_000_000, maxAge: 10),   // expired
            Entry(host: "1.2.3.4", includeSubDomains: false, created: 1_699_999_000, maxAge: 5000),     // IP
            Entry(host: "zero.example", includeSubDomains: false, created: 1_699_999_000, maxAge: 0),
            Entry(host: "c.example", includeSubDomains: false, created: 1_699_999_000, maxAge: 2000),
            Entry(host: "d.example", includeSubDomains: false, created: 1_699_999_000, maxAge: 9000),
        ])
        #expect(taken == 4)
        #expect(!store.hasChanges)
        let entries = store.entries()
        #expect(entries.map(\.host) == ["a.example", "b.example", "d.example"])   // c ties with a and loses by name
        #expect(entries.first?.includeSubDomains == false)
        #expect(entries[1].created == 1_699_999_500 && entries[1].port == 0)
    }

    @Test func concurrentLearningIsSafe() async {
        let store = Self.store(capacity: 1000)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask { store.learn(header: "max-age=100", host: "h\(index % 100).example", overTrustedTLS: true) }
            }
        }
        #expect(store.count == 100)
    }
}
