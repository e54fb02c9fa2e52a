import Foundation
import Testing
import SwgetKit
import SwgetTestSupport

/// Issue 10 §4 and §6 at the library level: ports outside 1–65535 are refused before anything
/// is sent; a complete body followed by extra bytes is kept once, with a warning, and its
/// connection never carries another request; a 204 creates no file; an https → http redirect
/// is followed with one warning; a server offering only TLS 1.0/1.1 is refused.
@Suite("Security: wire defects")
struct WireDefectTests {
    /// A port that, taken modulo 65536, is the test server's own: an implementation that
    /// truncated it would reach the server.
    @Test(arguments: [65_536, 131_072])
    func portsOutsideTheRangeAreRefusedBeforeSending(_ offset: Int) async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in .text("reached") }) { server in
            let url = "http://127.0.0.1:\(server.port + offset)/x.txt"
            if let made = Request(string: url) {
                let task = Session().downloadTask(with: made, destination: .directory(dir))
                let error = try #require(await task.outcome())
                #expect(error.category == .usage, "\(error)")
                #expect(error.message.contains("port"), "\(error)")
            }
            #expect(server.requests.isEmpty)
            #expect(server.connectionCount == 0)
        }
        #expect(files(in: dir) == [])
    }

    /// What follows the complete body on the wire.
    enum Extra: String, CaseIterable, Sendable { case beyondContentLength, bodyOf204 }

    static func response(_ extra: Extra) -> TestResponse {
        switch extra {
        case .beyondContentLength:
            TestResponse.ok(Array("hello, and then some".utf8)).withHeader("Content-Length", "5")
        case .bodyOf204:
            TestResponse(status: 204, body: Array("unexpected body".utf8))
        }
    }

    @Test(arguments: Extra.allCases)
    func extraBytesAfterACompleteBodyAreNotAFailure(_ extra: Extra) async throws {
        let dir = try makeTemporaryDirectory()
        let recorder = WarningRecorder()
        try await withServer({ request in request.path == "/next.txt" ? .text("next") : Self.response(extra) }) { server in
            let session = Session(configuration: ResumeTests.fastRetries(), delegate: recorder)
            let first = session.downloadTask(with: request(server.baseURL + "/a.txt"), destination: .directory(dir))
            #expect(await first.outcome() == nil)
            #expect(recorder.retries.withLock { $0 } == 0)
            let second = session.downloadTask(with: request(server.baseURL + "/next.txt"), destination: .directory(dir))
            #expect(await second.outcome() == nil)
            let requests = server.requests
            #expect(requests.map(\.path) == ["/a.txt", "/next.txt"], "one attempt each")
            #expect(requests.count == 2 && requests[0].connectionID != requests[1].connectionID, "the connection was not reused")
        }
        let warnings = recorder.all.filter { $0.contains("after the end of the response") }
        #expect(warnings.count == 1, "\(recorder.all)")
        switch extra {
        case .beyondContentLength:
            #expect(files(in: dir) == ["a.txt", "next.txt"])
            #expect(contents(dir + "/a.txt") == Array("hello".utf8))
        case .bodyOf204:
            #expect(files(in: dir) == ["next.txt"])
        }
    }

    @Test(arguments: ["file", "directory"])
    func aNoContentAnswerCreatesNoFile(_ kind: String) async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in .status(204) }) { server in
            let destination: DownloadDestination = kind == "file" ? .file(dir + "/out") : .directory(dir)
            let task = Session().downloadTask(with: request(server.baseURL + "/empty"), destination: destination)
            #expect(await task.outcome() == nil)
            #expect(task.response?.statusCode == 204)
            #expect(task.location == nil)
        }
        #expect(files(in: dir) == [])
    }

    @Test func httpsToHTTPRedirectIsFollowedWithOneWarning() async throws {
        let pki = try TestCertificates.make()
        var configuration = SessionConfiguration.default
        configuration.tls.additionalTrustRootFiles = [try pki.writeCA(to: makeTemporaryDirectory())]
        let recorder = WarningRecorder()
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in .text("plain") }) { plain in
            try await withServer(tls: try pki.serverIdentity(), { _ in .redirect(302, to: plain.baseURL + "/f.txt") }) { secure in
                let session = Session(configuration: configuration, delegate: recorder)
                let (path, _) = try await session.download(request(secure.baseURL + "/f.txt"), to: .directory(dir))
                #expect(contents(path) == Array("plain".utf8))
                #expect(plain.requests.count == 1)
            }
        }
        #expect(recorder.all.count == 1, "\(recorder.all)")
        #expect(recorder.all.first?.contains("https to http") == true, "\(recorder.all)")
    }

    /// The control: an http → http redirect gives no warning.
    @Test func plainRedirectGivesNoWarning() async throws {
        let recorder = WarningRecorder()
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in request.path == "/f.txt" ? .text("plain") : .redirect(302, to: "/f.txt") }) { server in
            _ = try await Session(delegate: recorder).download(request(server.baseURL + "/start"), to: .directory(dir))
        }
        #expect(recorder.all.isEmpty, "\(recorder.all)")
    }
}
