import Foundation
import Synchronization
import Testing
import SwgetKit
import SwgetTestSupport

/// A handler of `mem:` URLs serving bytes from memory: honours `Range: bytes=N-` with a strong
/// ETag, and breaks off its first answer after `breakAfter` bytes.
final class MemoryHandler: ProtocolHandler {
    let body: [UInt8]
    let breakAfter: Int?
    /// Every request it was given.
    let requests = Mutex<[Request]>([])

    init(body: [UInt8], breakAfter: Int? = nil) {
        self.body = body
        self.breakAfter = breakAfter
    }

    func canHandle(_ request: Request) -> Bool { request.url.scheme == "mem" }

    func startLoading(_ request: Request, client: ProtocolClient) async {
        let attempt = requests.withLock { requests -> Int in
            requests.append(request)
            return requests.count
        }
        var offset = 0
        var status = 200
        var headers: HeaderFields = ["ETag": "\"m1\""]
        if let range = request.headers["Range"], range.hasPrefix("bytes="), range.hasSuffix("-"),
           let start = Int(range.dropFirst(6).dropLast()), request.headers["If-Range"] == "\"m1\"", start < body.count {
            offset = start
            status = 206
            headers.set("Content-Range", "bytes \(start)-\(body.count - 1)/\(body.count)")
        }
        headers.set("Content-Length", String(body.count - offset))
        let response = Response(url: request.url, statusCode: status, headers: headers, expectedContentLength: Int64(body.count - offset))
        guard await client.didReceive(response) else { return }
        var position = offset
        while position < body.count, !client.isCancelled {
            let end = min(body.count, position + 10_000)
            if attempt == 1, let breakAfter, end > breakAfter {
                await client.didLoad(bytes: Array(body[position..<breakAfter]))
                client.didFail(with: SessionError.connectionClosed)
                return
            }
            await client.didLoad(bytes: Array(body[position..<end]))
            position = end
        }
        client.didFinishLoading()
    }
}

@Suite("The protocol handler registry")
struct ProtocolRegistryTests {
    @Test func aCustomHandlerServesADownloadAndResumesThroughRange() async throws {
        let body = randomBytes(123_456, seed: 5)
        let handler = MemoryHandler(body: body, breakAfter: 50_000)
        var configuration = SessionConfiguration.ephemeral
        configuration.protocolHandlers = [handler]
        configuration.retryPolicy.maxAttempts = 2
        configuration.retryPolicy.initialDelay = .zero
        configuration.retryPolicy.maxDelay = .zero
        let delegate = RecordingDelegate()
        let dir = try makeTemporaryDirectory()
        let (path, response) = try await Session(configuration: configuration, delegate: delegate)
            .download(request("mem://store/blob.bin"), to: .directory(dir))
        #expect(path.path == dir + "/blob.bin")
        #expect(response.statusCode == 206)
        #expect(contents(path) == body)
        let requests = handler.requests.withLock { $0 }
        #expect(requests.count == 2)
        #expect(requests.last?.headers["Range"] == "bytes=50000-")
        #expect(requests.last?.headers["If-Range"] == "\"m1\"")
        #expect(delegate.log.contains("resumed 50000"))
    }

    @Test func customHandlersComeBeforeTheBuiltInOnes() async throws {
        let handler = MemoryHandler(body: Array("mine".utf8))
        var configuration = SessionConfiguration.ephemeral
        configuration.protocolHandlers = [AnyScheme(inner: handler, scheme: "data")]
        let (body, _) = try await Session(configuration: configuration).data(for: request("data:,theirs"))
        #expect(Array(body) == Array("mine".utf8))
    }

    @Test func unknownSchemesAreRefused() async throws {
        await #expect(throws: SessionError.unsupportedURL) { try await Session().data(for: request("gopher://h/x")) }
    }

    @Test(arguments: ["ftp://127.0.0.1:1/x", "file:///etc/passwd", "data:,hi"])
    func redirectsFromHTTPToOtherProtocolsAreRefused(_ location: String) async throws {
        try await withServer({ _ in .redirect(302, to: location) }) { server in
            let error = await Session().dataTask(with: request(server.baseURL + "/go")).outcome()
            #expect(error == SessionError.badRedirect)
        }
    }
}

/// Routes another scheme to a handler.
struct AnyScheme: ProtocolHandler {
    let inner: MemoryHandler
    let scheme: String
    func canHandle(_ request: Request) -> Bool { request.url.scheme == scheme }
    func startLoading(_ request: Request, client: ProtocolClient) async {
        var copy = request
        copy.url = URL(string: "mem://x/y") ?? request.url
        await inner.startLoading(copy, client: client)
    }
}
