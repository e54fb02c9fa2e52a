import Testing
@testable import SwgetKit

@Suite("Protection spaces, credentials and their storage")
struct CredentialStorageTests {
    static let space = ProtectionSpace(host: "example.com", port: 443, scheme: "https", realm: "r", authenticationMethod: .httpBasic)
    static let alice = Credential(user: "alice", password: "pa", persistence: .forSession)
    static let bob = Credential(user: "bob", password: "pb", persistence: .forSession)
    static let once = Credential(user: "carol", password: "pc", persistence: .none)

    @Test func spacesNormaliseHostAndScheme() {
        let a = ProtectionSpace(host: "Example.COM", port: 443, scheme: "HTTPS", realm: "r", authenticationMethod: .httpBasic)
        #expect(a == Self.space)
        #expect(a != ProtectionSpace(host: "example.com", port: 443, scheme: "https", realm: "R", authenticationMethod: .httpBasic))
        #expect(a != ProtectionSpace(host: "example.com", port: 443, scheme: "https", realm: "r", authenticationMethod: .httpDigest))
        #expect(a.matchesOrigin(of: ProtectionSpace(host: "example.com", port: 443, scheme: "https", realm: nil)))
        #expect(!a.matchesOrigin(of: ProtectionSpace(host: "example.com", port: 443, scheme: "https", realm: nil, isProxy: true)))
        #expect(!a.matchesOrigin(of: ProtectionSpace(host: "example.com", port: 8443, scheme: "https", realm: nil)))
        let v6 = ProtectionSpace(host: "[::1]", port: 80, scheme: "http", realm: nil)
        #expect(v6.host == "::1" && v6.description == "http://[::1]:80")
        #expect(Self.space.description == #"https://example.com:443 realm "r""#)
    }

    @Test func credentialsReceivedSecurely() {
        #expect(Self.space.receivesCredentialSecurely)
        #expect(!ProtectionSpace(host: "h", port: 80, scheme: "http", realm: "r", authenticationMethod: .httpBasic).receivesCredentialSecurely)
        #expect(ProtectionSpace(host: "h", port: 80, scheme: "http", realm: "r", authenticationMethod: .httpDigest).receivesCredentialSecurely)
    }

    @Test func passwordsNeverPrinted() {
        let credential = Credential(user: "alice", password: "TOPSECRET", persistence: .forSession)
        var dumped = ""
        dump(credential, to: &dumped)
        for text in [credential.description, credential.debugDescription, "\(credential)", String(reflecting: credential), dumped] {
            #expect(!text.contains("TOPSECRET") && text.contains("alice"), "\(text)")
        }
        #expect(credential.user == "alice" && credential.password == "TOPSECRET" && credential.hasPassword)
        #expect(credential.with(persistence: .none).persistence == .none)
    }

    @Test func setGetRemove() {
        let storage = CredentialStorage()
        storage.set(Self.alice, for: Self.space)
        storage.set(Self.bob, for: Self.space)
        storage.set(Self.once, for: Self.space)
        #expect(storage.credentials(for: Self.space) == ["alice": Self.alice, "bob": Self.bob])
        let replaced = Credential(user: "alice", password: "new", persistence: .forSession)
        storage.set(replaced, for: Self.space)
        #expect(storage.credentials(for: Self.space)["alice"] == replaced)
        #expect(storage.defaultCredential(for: Self.space) == nil)
        storage.remove(Self.bob, for: Self.space)
        #expect(storage.allCredentials == [Self.space: ["alice": replaced]])
        storage.remove(replaced, for: Self.space)
        #expect(storage.allCredentials.isEmpty)
        storage.remove(replaced, for: Self.space)
    }

    @Test func defaultCredential() {
        let storage = CredentialStorage()
        storage.setDefaultCredential(Self.once, for: Self.space)
        #expect(storage.defaultCredential(for: Self.space) == nil && storage.allCredentials.isEmpty, ".none is never stored")
        storage.setDefaultCredential(Self.alice, for: Self.space)
        storage.set(Self.bob, for: Self.space)
        #expect(storage.defaultCredential(for: Self.space) == Self.alice)
        storage.setDefaultCredential(Self.bob, for: Self.space)
        #expect(storage.defaultCredential(for: Self.space) == Self.bob)
        storage.remove(Self.bob, for: Self.space)
        #expect(storage.defaultCredential(for: Self.space) == nil)
        #expect(storage.credentials(for: Self.space) == ["alice": Self.alice])
        storage.removeAll()
        #expect(storage.allCredentials.isEmpty)
    }

    @Test func originLookupFindsTheMostRecentSpace() throws {
        let storage = CredentialStorage()
        let other = ProtectionSpace(host: "example.com", port: 443, scheme: "https", realm: "other", authenticationMethod: .httpBasic)
        storage.remember(AcceptedAuthentication(space: Self.space, credential: Self.alice, digest: nil))
        storage.remember(AcceptedAuthentication(space: other, credential: Self.bob, digest: nil))
        let found = try #require(storage.defaultCredential(host: "EXAMPLE.com", port: 443, scheme: "https", isProxy: false))
        #expect(found.space == other && found.credential == Self.bob)
        #expect(storage.defaultCredential(host: "example.com", port: 443, scheme: "https", isProxy: true) == nil)
        #expect(storage.defaultCredential(host: "example.com", port: 80, scheme: "http", isProxy: false) == nil)
        storage.remember(AcceptedAuthentication(space: Self.space, credential: Self.once, digest: nil))
        #expect(storage.defaultCredential(host: "example.com", port: 443, scheme: "https", isProxy: false)?.credential == Self.bob,
                ".none credentials are not remembered")
    }

    @Test func preemptiveBasic() throws {
        let storage = CredentialStorage()
        #expect(storage.preemptiveAuthorization(host: "example.com", port: 443, scheme: "https", isProxy: false,
                                                method: "GET", uri: "/", body: .empty) == nil)
        storage.remember(AcceptedAuthentication(space: Self.space, credential: Self.alice, digest: nil))
        let sent = try #require(storage.preemptiveAuthorization(host: "example.com", port: 443, scheme: "https", isProxy: false,
                                                                method: "GET", uri: "/", body: .empty))
        #expect(sent.value == "Basic YWxpY2U6cGE=" && sent.field == "Authorization" && sent.space == Self.space)
        let proxy = ProtectionSpace(host: "proxy", port: 3128, scheme: "http", realm: "p", authenticationMethod: .httpBasic, isProxy: true)
        storage.remember(AcceptedAuthentication(space: proxy, credential: Self.bob, digest: nil))
        #expect(storage.preemptiveAuthorization(host: "proxy", port: 3128, scheme: "http", isProxy: true,
                                                method: "GET", uri: "http://x/", body: .empty)?.field == "Proxy-Authorization")
    }

    static func digestState(nonceCount: UInt32 = 1) throws -> DigestNonceState {
        let challenge = try DigestChallenge(try #require(AuthChallenge.parse(field: "Digest realm=r, nonce=abc, qop=auth").first))
        return DigestNonceState(challenge: challenge, cnonce: "c0ffee", nonceCount: nonceCount)
    }

    static let digestSpace = ProtectionSpace(host: "example.com", port: 443, scheme: "https", realm: "r", authenticationMethod: .httpDigest)

    @Test func preemptiveDigestAdvancesTheCount() throws {
        let storage = CredentialStorage()
        storage.remember(AcceptedAuthentication(space: Self.digestSpace, credential: Self.alice, digest: try Self.digestState()))
        for expected in ["nc=00000002", "nc=00000003"] {
            let sent = try #require(storage.preemptiveAuthorization(host: "example.com", port: 443, scheme: "https", isProxy: false,
                                                                    method: "GET", uri: "/next", body: .empty))
            #expect(sent.value.contains(expected) && sent.value.contains(#"nonce="abc""#) && sent.value.contains(#"uri="/next""#))
            #expect(sent.digest?.nonceCount == (expected.hasSuffix("2") ? 2 : 3))
        }
    }

    @Test func exhaustedDigestNonceIsNotSent() throws {
        let storage = CredentialStorage()
        storage.remember(AcceptedAuthentication(space: Self.digestSpace, credential: Self.alice, digest: try Self.digestState(nonceCount: .max)))
        #expect(storage.preemptiveAuthorization(host: "example.com", port: 443, scheme: "https", isProxy: false,
                                                method: "GET", uri: "/", body: .empty) == nil)
        storage.remember(AcceptedAuthentication(space: Self.digestSpace, credential: Self.alice, digest: nil))
        #expect(storage.preemptiveAuthorization(host: "example.com", port: 443, scheme: "https", isProxy: false,
                                                method: "GET", uri: "/", body: .empty) == nil, "Digest without a nonce")
    }

    @Test func concurrentRequestsNeverShareACount() async throws {
        let storage = CredentialStorage()
        storage.remember(AcceptedAuthentication(space: Self.digestSpace, credential: Self.alice, digest: try Self.digestState(nonceCount: 0)))
        let counts = await withTaskGroup(of: UInt32?.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    storage.preemptiveAuthorization(host: "example.com", port: 443, scheme: "https", isProxy: false,
                                                    method: "GET", uri: "/", body: .empty)?.digest?.nonceCount
                }
            }
            var all: [UInt32] = []
            for await count in group { if let count { all.append(count) } }
            return all
        }
        #expect(counts.count == 200 && Set(counts) == Set(1...200))
    }

    @Test func spacesAreBounded() {
        let storage = CredentialStorage()
        for i in 0..<(CredentialStorage.maximumSpaces + 100) {
            storage.set(Self.alice, for: ProtectionSpace(host: "h", port: 80, scheme: "http", realm: "realm\(i)"))
        }
        let all = storage.allCredentials
        #expect(all.count == CredentialStorage.maximumSpaces)
        #expect(all[ProtectionSpace(host: "h", port: 80, scheme: "http", realm: "realm0")] == nil)
        #expect(all[ProtectionSpace(host: "h", port: 80, scheme: "http", realm: "realm\(CredentialStorage.maximumSpaces + 99)")] != nil)
    }
}
