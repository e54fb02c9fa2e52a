import Foundation
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// Issue 10 §1: the user's `Authorization` and `Cookie` fields never reach another origin,
/// whichever path builds the request there — a segment of a split download, a retry after a
/// body cut short, a resume by a later run — and still reach the original origin (so each test
/// can fail both ways).
@Suite("Security: credentials stay with their origin")
struct CredentialOriginTests {
    static let source = bytes(1_000_000, seed: 0x51)

    /// Where the first server sends `/start`: to the other origin, or to itself.
    enum Hop: String, CaseIterable, Sendable { case otherOrigin, sameOrigin }

    /// The first server answers `/start` with a redirect to `/file.bin` at `hop`'s origin and
    /// serves `/file.bin` itself as `serve` says; so does the second server.
    static func run(
        _ hop: Hop, serve: @escaping @Sendable (TestRequest) -> TestResponse,
        _ body: (_ start: Request, _ target: () -> TestServer) async throws -> Void
    ) async throws {
        try await Security.withTwoOrigins(second: serve, first: { second, request in
            guard request.path == "/start" else { return serve(request) }
            return .redirect(302, to: (hop == .otherOrigin ? second : "") + "/file.bin")
        }) { first, second in
            try await body(Security.credentialed(first.baseURL + "/start"), { hop == .otherOrigin ? second : first })
        }
    }

    /// Every request the target origin received for the file: none carries the fields at
    /// another origin, all of them do at the same origin.
    static func checkFields(_ hop: Hop, at server: TestServer, sourceLocation: SourceLocation = #_sourceLocation) {
        let requests = server.requests.filter { $0.path == "/file.bin" }
        #expect(!requests.isEmpty, sourceLocation: sourceLocation)
        for request in requests {
            let expected = hop == .sameOrigin ? ["Authorization: Bearer X", "Cookie: c=1"] : []
            #expect(request.credentialFields == expected, "\(hop) \(request.header("Range") ?? "whole")",
                    sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: Hop.allCases)
    func segmentsOfASplitDownload(_ hop: Hop) async throws {
        let dir = try makeTemporaryDirectory()
        var configuration = ResumeTests.fastRetries()
        configuration.segmentsPerDownload = 8
        configuration.minimumSegmentBytes = 64 * 1024
        try await Self.run(hop, serve: { request in
            TestResponse.serving(Self.source, to: request, etag: "\"s\"").trickled(bytesPerWrite: 20_000, every: .milliseconds(5))
        }) { start, target in
            let (path, _) = try await Session(configuration: configuration).download(start, to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(Self.source))
            let ranged = target().requests.filter { $0.header("Range") != nil }
            #expect(ranged.count >= 2, "the download really was split: \(target().requests.map { $0.header("Range") ?? "-" })")
            Self.checkFields(hop, at: target())
        }
    }

    @Test(arguments: Hop.allCases)
    func retryAfterABodyCutShort(_ hop: Hop) async throws {
        let dir = try makeTemporaryDirectory()
        let counter = ResumeTests.Counter()
        try await Self.run(hop, serve: { request in
            let response = TestResponse.serving(Self.source, to: request, etag: "\"r\"")
            guard request.path == "/file.bin" else { return response }
            return counter.next() == 1 ? response.closing(afterBodyBytes: 100_000) : response
        }) { start, target in
            let (path, _) = try await Session(configuration: ResumeTests.fastRetries()).download(start, to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(Self.source))
            #expect(target().requests.last?.header("Range") == "bytes=100000-")
            Self.checkFields(hop, at: target())
        }
    }

    /// A later "process" (a new background session with the same identifier) continues the
    /// part where the redirect led, as `swget URL` run again does.
    @Test(arguments: Hop.allCases)
    func resumeByALaterRun(_ hop: Hop) async throws {
        let dir = try makeTemporaryDirectory()
        let counter = ResumeTests.Counter()
        let identifier = "credentials-\(hop)"
        try await Self.run(hop, serve: { request in
            let response = TestResponse.serving(Self.source, to: request, etag: "\"k\"")
            guard request.path == "/file.bin" else { return response }
            return counter.next() == 1 ? response.closing(afterBodyBytes: 300_000) : response
        }) { start, target in
            var once = ResumeTests.fastRetries(1, background: identifier)
            once.retryPolicy = .none
            let failed = Session(configuration: once).downloadTask(with: start, destination: .directory(dir))
            #expect(await failed.outcome() == SessionError.connectionClosed)
            #expect(files(in: dir) == ["start.part", "start.swget"])  // named after the URL asked for
            let again = Session(configuration: ResumeTests.fastRetries(background: identifier))
            #expect(await again.downloadTask(with: start, destination: .directory(dir)).outcome() == nil)
            #expect(target().requests.last?.header("Range") == "bytes=300000-")
            Self.checkFields(hop, at: target())
        }
        #expect(files(in: dir) == ["start"])
        #expect(fingerprint(contents(dir + "/start")) == fingerprint(Self.source))
    }

    /// A URL's password never reaches a state file (it stays in the request, where it belongs).
    @Test func passwordOfTheURLIsNotInTheStateFile() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in
            TestResponse.serving(Self.source, to: request, etag: "\"p\"").closing(afterBodyBytes: 300_000)
        }) { server in
            let url = server.baseURL.replacingOccurrences(of: "://", with: "://user:s3cr3tpw@") + "/p.bin"
            var once = ResumeTests.fastRetries(1, background: "password")
            once.retryPolicy = .none
            let task = Session(configuration: once).downloadTask(with: request(url), destination: .directory(dir))
            let error = try #require(await task.outcome())
            #expect(!error.message.contains("s3cr3tpw"))
            #expect(error.url.map { !$0.absoluteString.contains("s3cr3tpw") } ?? true)
            let state = String(decoding: try #require(contents(dir + "/p.bin.swget")), as: UTF8.self)
            #expect(state.contains("user:***@"), "\(state)")
            #expect(!state.contains("s3cr3tpw"), "\(state)")
        }
    }
}
