import Foundation
import Synchronization
import Testing
import SwgetKit
import SwgetTestSupport

/// Cookies through the request engine: learned from every answer of a redirect chain, computed
/// for every hop from the store (so they follow host, path and Secure rules by construction),
/// carried by split and resumed downloads, merged with the caller's own `Cookie` field, and kept
/// apart between sessions that must not share them.
@Suite("Cookies through the request engine")
struct CookieTests {
    /// A login behind three answers: /login sets the session, /welcome needs it and sets a cookie
    /// for /files, /files/report.bin needs both. Without the cookies each step answers 403.
    static func loginChain(_ request: TestRequest) -> TestResponse {
        let cookie = request.header("Cookie") ?? ""
        switch request.path {
        case "/login":
            return TestResponse.redirect(302, to: "/welcome")
                .withHeader("Set-Cookie", "session=s3cr3t; Path=/; HttpOnly")
                .withHeader("Set-Cookie", "theme=dark")  // default path "/": no Path attribute, request path /login
        case "/welcome":
            guard cookie.contains("session=s3cr3t") else { return .text("log in first", status: 403) }
            return TestResponse.redirect(302, to: "/files/report.bin")
                .withHeader("Set-Cookie", "stage=2; Path=/files; Max-Age=600")
        case "/files/report.bin":
            guard cookie.contains("session=s3cr3t"), cookie.contains("stage=2") else { return .text("not yet", status: 403) }
            return .ok(Array("the report".utf8))
        default:
            return .text("lost", status: 404)
        }
    }

    @Test func aLoginChainOfRedirectsSetsCookiesAtEveryHop() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await withServer(Self.loginChain) { server in
            let configuration = isolatedConfiguration()
            let (path, response) = try await Session(configuration: configuration).download(request(server.baseURL + "/login"), to: .directory(dir))
            #expect(response.statusCode == 200)
            #expect(contents(path) == Array("the report".utf8))
            #expect(server.requests.map(\.path) == ["/login", "/welcome", "/files/report.bin"])
            // Longer paths first, then earlier creation (RFC 6265bis §5.8.3).
            #expect(headerValues("Cookie", server.requests) == [nil, "session=s3cr3t; theme=dark", "stage=2; session=s3cr3t; theme=dark"])
            let names = Set(configuration.cookieStorage?.allCookies.map(\.name) ?? [])
            #expect(names == ["session", "theme", "stage"])
        }
    }

    /// Path and host decide: a cookie for /files is not sent to /other nor to /filesystem, and the
    /// cookies of 127.0.0.1 are not sent to localhost (another host), though they are sent to
    /// 127.0.0.1 on another port (cookies ignore ports, RFC 6265bis §8.5).
    @Test func cookiesGoOnlyWhereTheyApply() async throws {
        let setter: @Sendable (TestRequest) -> TestResponse = { request in
            guard request.path == "/set" else { return .text("seen") }
            return TestResponse.text("set")
                .withHeader("Set-Cookie", "deep=1; Path=/files")
                .withHeader("Set-Cookie", "wide=2; Path=/")
        }
        try await withServer(setter) { server in
            try await withServer(setter) { other in
                let session = Session(configuration: isolatedConfiguration())
                for path in ["/set", "/other", "/files", "/files/x", "/filesystem", "/FILES/x"] {
                    _ = try await session.data(for: request(server.baseURL + path))
                }
                #expect(headerValues("Cookie", server.requests) == [nil, "wide=2", "deep=1; wide=2", "deep=1; wide=2", "wide=2", "wide=2"])
                _ = try await session.data(for: request("http://localhost:\(other.port)/files/x"))
                _ = try await session.data(for: request("http://127.0.0.1:\(other.port)/files/x"))
                #expect(headerValues("Cookie", other.requests) == [nil, "deep=1; wide=2"])
            }
        }
    }

    /// `Secure` cookies come only from a secure connection and go only over one. The store
    /// counts plain http to a loopback host as secure unless told otherwise (`loopbackIsSecure`,
    /// as browsers and curl do); with it off, http://localhost is treated like any other host.
    @Test(arguments: [false, true])
    func secureCookiesNeverTravelOverPlainHTTP(loopbackIsSecure: Bool) async throws {
        let pki = try LocalPKI()
        defer { pki.remove() }
        let handler: @Sendable (TestRequest) -> TestResponse = { request in
            guard request.path == "/set" else { return .text("seen") }
            return TestResponse.text("set")
                .withHeader("Set-Cookie", "sec=1; Secure; Path=/")
                .withHeader("Set-Cookie", "plain=2; Path=/")
        }
        try await withServer(tls: pki.identity, handler) { secure in
            try await withServer(handler) { plain in
                var configuration = pki.trusting(isolatedConfiguration())
                let storage = CookieStorage(loopbackIsSecure: loopbackIsSecure)
                configuration.cookieStorage = storage
                let session = Session(configuration: configuration)
                // Set over https://localhost, then asked for over plain http://localhost.
                _ = try await session.data(for: request(secure.baseURL + "/set"))
                _ = try await session.data(for: request("http://localhost:\(plain.port)/read"))
                _ = try await session.data(for: request(secure.baseURL + "/read"))
                #expect(plain.requests.last?.header("Cookie") == (loopbackIsSecure ? "sec=1; plain=2" : "plain=2"))
                #expect(secure.requests.last?.header("Cookie") == "sec=1; plain=2")
                // A plain http answer cannot set a Secure cookie, nor overwrite the secure one.
                storage.removeAll()
                _ = try await session.data(for: request("http://localhost:\(plain.port)/set"))
                #expect(storage.allCookies.map(\.name).sorted() == (loopbackIsSecure ? ["plain", "sec"] : ["plain"]))
            }
        }
    }

    /// The public suffix list decides (libpsl): `Domain=co.uk` or `Domain=github.io` is refused,
    /// and `Domain=localhost` from localhost — an unlisted top-level label, a public suffix
    /// itself — becomes a host-only cookie rather than one for every `*.localhost`.
    @Test func publicSuffixCookiesAreRefused() async throws {
        try await withServer({ request in
            guard request.path == "/set" else { return .text("seen") }
            return TestResponse.text("set")
                .withHeader("Set-Cookie", "uk=1; Domain=co.uk")
                .withHeader("Set-Cookie", "gh=1; Domain=github.io")
                .withHeader("Set-Cookie", "com=1; Domain=.com")
                .withHeader("Set-Cookie", "suffix=1; Domain=localhost")
                .withHeader("Set-Cookie", "ok=1")
        }) { server in
            let configuration = isolatedConfiguration()
            let session = Session(configuration: configuration)
            _ = try await session.data(for: request("http://localhost:\(server.port)/set"))
            _ = try await session.data(for: request("http://localhost:\(server.port)/read"))
            #expect(server.requests.last?.header("Cookie") == "suffix=1; ok=1")
            let stored = configuration.cookieStorage?.allCookies ?? []
            #expect(stored.map(\.name) == ["suffix", "ok"])
            #expect(stored.allSatisfy { $0.hostOnly && $0.domain == "localhost" })
        }
    }

    /// 4,000 cookies from one server, 100 per answer, stay within the store's limits: the
    /// per-domain bound with the default limits, the total bound when the per-domain one is
    /// lifted. The newest cookies are kept and every request's Cookie field is what the store holds.
    @Test(arguments: [CookieStorage.Limits.default, CookieStorage.Limits(perDomain: 10_000, total: 3_000)])
    func fourThousandCookiesStayWithinTheLimits(_ limits: CookieStorage.Limits) async throws {
        try await withServer({ request in
            guard let n = Int(request.path.dropFirst(5)) else { return .text("seen") }
            var response = TestResponse.text("set \(n)")
            for i in 0..<100 { response = response.withHeader("Set-Cookie", "c\(n)_\(i)=\(String(repeating: "v", count: 8)); Path=/") }
            return response
        }) { server in
            var configuration = isolatedConfiguration()
            let storage = CookieStorage(limits: limits)
            configuration.cookieStorage = storage
            let session = Session(configuration: configuration)
            for n in 0..<40 {
                let (_, response) = try await session.data(for: request(server.baseURL + "/set/\(n)"))
                #expect(response.statusCode == 200)
            }
            _ = try await session.data(for: request(server.baseURL + "/read"))
            let bound = min(limits.perDomain + limits.perDomain / 5, limits.total + limits.total / 10)
            let held = storage.allCookies
            #expect(held.count <= bound && held.count >= min(limits.perDomain, limits.total), "\(held.count) held, bound \(bound)")
            let sent = try #require(server.requests.last?.header("Cookie")).split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(sent.count == held.count)
            #expect(sent.contains("c39_99=vvvvvvvv") && sent.contains("c39_0=vvvvvvvv"), "the newest answer's cookies are kept")
            #expect(!sent.contains("c0_0=vvvvvvvv"), "the oldest went first")
        }
    }

    // MARK: Split and resumed downloads

    /// Serves `source` (ranges, ETag) only to requests carrying `k=v`; 403 otherwise. /login sets it.
    static func cookieProtected(_ source: [UInt8], closeFirstAfter: Int? = nil) -> @Sendable (TestRequest) -> TestResponse {
        let counter = ResumeTests.Counter()
        return { request in
            if request.path == "/login" {
                return TestResponse.redirect(302, to: "/big.bin").withHeader("Set-Cookie", "k=v; Path=/")
            }
            guard request.header("Cookie") == "k=v" else { return .text("no cookie", status: 403) }
            let response = TestResponse.serving(source, to: request, etag: "\"e1\"")
            if let closeFirstAfter, counter.next() == 1 {
                return response.closing(afterBodyBytes: closeFirstAfter)
            }
            return response.trickled(bytesPerWrite: 50_000, every: .milliseconds(5))
        }
    }

    @Test func aSplitDownloadCarriesTheCookiesToEverySegment() async throws {
        let source = bytes(1_000_000, seed: 9)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await withServer(Self.cookieProtected(source)) { server in
            var configuration = isolatedConfiguration()
            configuration.segmentsPerDownload = 4
            configuration.minimumSegmentBytes = 64 * 1024
            let (path, _) = try await Session(configuration: configuration).download(request(server.baseURL + "/login"), to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(source))
            let ranged = server.requests.filter { $0.header("Range") != nil }
            #expect(ranged.count >= 2, "\(server.requests.map { "\($0.path) \($0.header("Range") ?? "-")" })")
            #expect(server.requests.dropFirst().allSatisfy { $0.header("Cookie") == "k=v" },
                    "\(server.requests.map { "\($0.path) \($0.header("Range") ?? "-") \($0.header("Cookie") ?? "-")" })")
        }
    }

    /// The connection drops mid-body; the retry resumes with a Range request that carries the
    /// cookie, and so does a later resume from the task's resume data in a new session.
    @Test func aResumedDownloadCarriesTheCookies() async throws {
        let source = bytes(600_000, seed: 11)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await withServer(Self.cookieProtected(source, closeFirstAfter: 200_000)) { server in
            var configuration = isolatedConfiguration()
            configuration.retryPolicy = RetryPolicy()
            configuration.retryPolicy.maxAttempts = 3
            configuration.retryPolicy.initialDelay = .milliseconds(5)
            configuration.retryPolicy.maxDelay = .milliseconds(10)
            let (path, _) = try await Session(configuration: configuration).download(request(server.baseURL + "/login"), to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(source))
            let resumed = try #require(server.requests.first { $0.header("Range") != nil })
            #expect(resumed.header("Range") == "bytes=200000-")
            #expect(resumed.header("Cookie") == "k=v")
        }
    }

    @Test func aResumeFromResumeDataCarriesTheCookies() async throws {
        let source = bytes(600_000, seed: 12)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await withServer(Self.cookieProtected(source, closeFirstAfter: 250_000)) { server in
            let configuration = isolatedConfiguration()
            let first = Session(configuration: configuration).downloadTask(with: request(server.baseURL + "/login"), destination: .directory(dir))
            let error = try #require(await first.outcome())
            let resumeData = try #require(error.resumeData)
            // A new session with the same cookie store.
            let task = Session(configuration: configuration).downloadTask(withResumeData: resumeData)
            #expect(await task.outcome() == nil)
            #expect(fingerprint(contents(task.location)) == fingerprint(source))
            let resumed = try #require(server.requests.last)
            #expect(resumed.header("Range") != nil)
            #expect(resumed.header("Cookie") == "k=v")
        }
    }

    // MARK: The caller's own Cookie field, the per-request switch, separate sessions

    /// The caller's `Cookie` field goes first, exactly as given; stored cookies follow unless the
    /// caller already named them (the caller wins, nothing is sent twice). It is bound to the
    /// original origin; stored cookies are computed per hop.
    @Test func aCallersCookieFieldIsMergedWithStoredCookies() async throws {
        try await withServer({ _ in .text("other") }) { other in
            try await withServer({ request in
                switch request.path {
                case "/set": TestResponse.text("set").withHeader("Set-Cookie", "stored=1").withHeader("Set-Cookie", "both=store")
                case "/away": TestResponse.redirect(302, to: "http://localhost:\(other.port)/x")
                default: .text("seen")
                }
            }) { server in
                let configuration = isolatedConfiguration()
                configuration.cookieStorage?.setCookie(Cookie(name: "there", value: "1", domain: "localhost", path: "/", creationTime: Date()))
                let session = Session(configuration: configuration)
                _ = try await session.data(for: request(server.baseURL + "/set"))
                var mine = request(server.baseURL + "/read")
                mine.headers.set("Cookie", "mine=a; both=mine")
                _ = try await session.data(for: mine)
                #expect(server.requests.last?.header("Cookie") == "mine=a; both=mine; stored=1")
                mine.url = try #require(URL(string: server.baseURL + "/away"))
                _ = try await session.data(for: mine)
                #expect(other.requests.last?.header("Cookie") == "there=1")
            }
        }
    }

    /// `shouldHandleCookies = false`: stored cookies are not sent and answers' cookies are not
    /// stored; the caller's own field still goes.
    @Test func aRequestCanOptOutOfCookies() async throws {
        try await withServer({ _ in TestResponse.text("set").withHeader("Set-Cookie", "new=1") }) { server in
            let configuration = isolatedConfiguration()
            let storage = try #require(configuration.cookieStorage)
            storage.setCookie(Cookie(name: "old", value: "1", domain: "127.0.0.1", path: "/", creationTime: Date()))
            let session = Session(configuration: configuration)
            var request = request(server.baseURL + "/x")
            request.shouldHandleCookies = false
            request.headers.set("Cookie", "own=1")
            _ = try await session.data(for: request)
            #expect(server.requests.last?.header("Cookie") == "own=1")
            #expect(storage.allCookies.map(\.name) == ["old"])
            request.shouldHandleCookies = true
            _ = try await session.data(for: request)
            #expect(server.requests.last?.header("Cookie") == "own=1; old=1")
            #expect(storage.allCookies.map(\.name).sorted() == ["new", "old"])
        }
    }

    /// Ephemeral sessions keep their cookies to themselves; default sessions share the
    /// process-wide store. The cookie of the default session is bound to a path of its own, so
    /// that no other test running meanwhile against 127.0.0.1 is sent it.
    @Test func ephemeralSessionsDoNotShareCookiesWithDefaultOnes() async throws {
        let path = "/only-\(UInt64.random(in: 0...UInt64.max))"
        try await withServer({ request in
            request.path.hasSuffix("/set") ? TestResponse.text("set").withHeader("Set-Cookie", "k=\(request.query ?? "-"); Path=\(path)") : .text("seen")
        }) { server in
            #expect(SessionConfiguration.default.cookieStorage === CookieStorage.shared)
            #expect(SessionConfiguration.ephemeral.cookieStorage !== CookieStorage.shared)
            #expect(SessionConfiguration.ephemeral.cookieStorage !== SessionConfiguration.ephemeral.cookieStorage)

            let ephemeral = Session(configuration: isolatedConfiguration())
            _ = try await ephemeral.data(for: request(server.baseURL + path + "/set?ephemeral"))
            let shared = Session(configuration: .default)
            _ = try await shared.data(for: request(server.baseURL + path + "/read"))
            #expect(server.requests.last?.header("Cookie") == nil, "the default session does not see the ephemeral cookie")

            _ = try await shared.data(for: request(server.baseURL + path + "/set?shared"))
            defer { for cookie in CookieStorage.shared.allCookies where cookie.path == path { CookieStorage.shared.deleteCookie(cookie) } }
            _ = try await Session(configuration: isolatedConfiguration()).data(for: request(server.baseURL + path + "/read"))
            #expect(server.requests.last?.header("Cookie") == nil, "a new ephemeral session starts empty")
            _ = try await ephemeral.data(for: request(server.baseURL + path + "/read"))
            #expect(server.requests.last?.header("Cookie") == "k=ephemeral")
            _ = try await Session(configuration: .default).data(for: request(server.baseURL + path + "/read"))
            #expect(server.requests.last?.header("Cookie") == "k=shared", "default sessions share one store")
        }
    }
}
