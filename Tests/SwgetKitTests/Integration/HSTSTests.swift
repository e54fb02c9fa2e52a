import Foundation
import Testing
import SwgetKit
import SwgetTestSupport

/// HSTS (RFC 6797) through the request engine, with the in-process HTTPS server and a test CA.
///
/// The upgrade of `http://localhost:PORT` is `https://localhost:PORT` (an explicit port other
/// than 80 is kept, RFC 6797 §8.3), so the tests send `http://` URLs to the port of the HTTPS
/// server itself: a request that was not upgraded would reach a TLS server in plain text and
/// fail, one that was upgraded is served. Names under localhost do not resolve here, so
/// `includeSubDomains` is judged by the URL the task ended at.
@Suite("HSTS through the request engine")
struct HSTSTests {
    /// /sts answers `Strict-Transport-Security: VALUE` where VALUE is the query (percent-decoded).
    static let handler: @Sendable (TestRequest) -> TestResponse = { request in
        switch request.path {
        case "/sts":
            let value = request.query?.removingPercentEncoding ?? "max-age=3600"
            return TestResponse.text("policy").withHeader("Strict-Transport-Security", value)
        case "/to-http":
            return .redirect(302, to: request.query?.removingPercentEncoding ?? "/")
        default:
            return .text("served \(request.path)")
        }
    }

    static func sts(_ base: String, _ value: String) -> Request {
        request(base + "/sts?" + (value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
    }

    @Test func learnedOverVerifiedHTTPSThenHTTPIsUpgradedBeforeAnyRequest() async throws {
        let pki = try LocalPKI()
        defer { pki.remove() }
        try await withServer(tls: pki.identity, Self.handler) { server in
            let configuration = pki.trusting(isolatedConfiguration())
            let hsts = try #require(configuration.hsts)
            let plainURL = "http://localhost:\(server.port)/after"
            #expect(hsts.upgrade(try #require(URL(string: plainURL))) == nil, "nothing known yet")
            let session = Session(configuration: configuration)

            _ = try await session.data(for: Self.sts(server.baseURL, "max-age=3600"))
            let entry = try #require(hsts.policy(for: "localhost"))
            #expect(entry.maxAge == 3600 && !entry.includeSubDomains)

            let task = session.dataTask(with: request(plainURL))
            #expect(await task.outcome() == nil)
            #expect(task.response?.url.absoluteString == "https://localhost:\(server.port)/after")
            #expect(server.requests.map(\.path) == ["/sts", "/after"])

            // A redirect to http:// on that host is upgraded before it is followed.
            let target = "http://localhost:\(server.port)/landed"
            let (data, response) = try await session.data(for: request(server.baseURL + "/to-http?" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")))
            #expect(String(decoding: data, as: UTF8.self) == "served /landed")
            #expect(response.url.scheme == "https")
        }
    }

    /// Without a policy, the same http:// URL goes out in plain text and the TLS server cannot
    /// answer it: what makes the test above meaningful.
    @Test func withoutAPolicyTheHTTPURLIsNotUpgraded() async throws {
        let pki = try LocalPKI()
        defer { pki.remove() }
        try await withServer(tls: pki.identity, Self.handler) { server in
            let task = Session(configuration: pki.trusting(isolatedConfiguration())).dataTask(with: request("http://localhost:\(server.port)/x"))
            let error = await task.outcome()
            #expect(error != nil)
            #expect(task.currentRequest.url.scheme == "http")
            #expect(server.requests.isEmpty)
        }
    }

    /// `includeSubDomains` covers sub.localhost; without it only localhost itself is upgraded.
    @Test(arguments: [true, false])
    func includeSubDomainsCoversSubdomains(include: Bool) async throws {
        let pki = try LocalPKI()
        defer { pki.remove() }
        try await withServer(tls: pki.identity, Self.handler) { server in
            let configuration = pki.trusting(isolatedConfiguration())
            let session = Session(configuration: configuration)
            _ = try await session.data(for: Self.sts(server.baseURL, include ? "max-age=600; includeSubDomains" : "max-age=600"))
            #expect((configuration.hsts?.policy(for: "sub.localhost") != nil) == include)
            let task = session.dataTask(with: request("http://sub.localhost:\(server.port)/x"))
            let error = await task.outcome()
            // sub.localhost resolves only on machines whose resolver maps *.localhost (systemd);
            // either way the task went (or tried to go) to the URL the policy decided.
            #expect(task.currentRequest.url.absoluteString == "\(include ? "https" : "http")://sub.localhost:\(server.port)/x")
            if include, error == nil { #expect(server.requests.last?.header("Host") == "sub.localhost:\(server.port)") }
        }
    }

    @Test func maxAgeZeroRemovesThePolicy() async throws {
        let pki = try LocalPKI()
        defer { pki.remove() }
        try await withServer(tls: pki.identity, Self.handler) { server in
            let configuration = pki.trusting(isolatedConfiguration())
            let hsts = try #require(configuration.hsts)
            let session = Session(configuration: configuration)
            _ = try await session.data(for: Self.sts(server.baseURL, "max-age=600; includeSubDomains"))
            #expect(hsts.policy(for: "localhost") != nil)
            _ = try await session.data(for: Self.sts(server.baseURL, "max-age=0"))
            #expect(hsts.policy(for: "localhost") == nil)
            #expect(hsts.entries().isEmpty)
            let task = session.dataTask(with: request("http://localhost:\(server.port)/x"))
            _ = await task.outcome()
            #expect(task.currentRequest.url.scheme == "http")
        }
    }

    /// Where a policy must not be learned (RFC 6797 §8.1): plain http, an IP address, a
    /// connection whose certificate was not verified.
    enum Untrusted: String, CaseIterable, Sendable {
        case plainHTTP, ipAddress, verificationOff
    }

    @Test(arguments: Untrusted.allCases)
    func neverLearnedWithoutVerifiedHTTPSToAName(_ c: Untrusted) async throws {
        let pki = try LocalPKI()
        defer { pki.remove() }
        try await withServer(tls: c == .plainHTTP ? nil : pki.identity, Self.handler) { server in
            var configuration = pki.trusting(isolatedConfiguration())
            let base: String
            switch c {
            case .plainHTTP: base = "http://localhost:\(server.port)"
            case .ipAddress: base = "https://127.0.0.1:\(server.port)"
            case .verificationOff:
                base = server.baseURL
                configuration.tls.verification = .none
            }
            let hsts = try #require(configuration.hsts)
            let (_, response) = try await Session(configuration: configuration).data(for: Self.sts(base, "max-age=600; includeSubDomains"))
            #expect(response.statusCode == 200)
            #expect(response.headers["Strict-Transport-Security"] != nil)
            #expect(hsts.entries().isEmpty)
            #expect(!hsts.hasChanges)
        }
    }

    /// A certificate the delegate accepted although verification failed is not "verified
    /// HTTPS": its policy is ignored too.
    @Test func notLearnedWhenTheDelegateOverridesAFailedVerification() async throws {
        let pki = try LocalPKI()
        defer { pki.remove() }
        let delegate = RecordingDelegate(trust: .accept)
        try await withServer(tls: try TestCertificates.selfSigned(), Self.handler) { server in
            let configuration = pki.trusting(isolatedConfiguration())
            let (_, response) = try await Session(configuration: configuration, delegate: delegate).data(for: Self.sts(server.baseURL, "max-age=600"))
            #expect(response.statusCode == 200)
            #expect(delegate.log.contains("challenge localhost untrusted"))
            #expect(configuration.hsts?.entries().isEmpty == true)
        }
    }

    @Test func defaultSessionsShareTheProcessStoreAndEphemeralOnesDoNot() {
        #expect(SessionConfiguration.default.hsts === HSTSStore.shared)
        #expect(SessionConfiguration.background(identifier: "hsts-test").hsts === HSTSStore.shared)
        #expect(SessionConfiguration.ephemeral.hsts !== HSTSStore.shared)
        #expect(SessionConfiguration.ephemeral.hsts !== SessionConfiguration.ephemeral.hsts)
        #expect(SessionConfiguration.default.credentialStorage === CredentialStorage.shared)
        #expect(SessionConfiguration.ephemeral.credentialStorage !== CredentialStorage.shared)
    }
}
