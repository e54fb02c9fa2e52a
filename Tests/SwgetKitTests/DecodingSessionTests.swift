import Foundation
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// Content codings and gzip payloads through a real session and the in-process server: the
/// file on disk is always the decoded body byte for byte, or the task fails and leaves nothing
/// under the final name.
@Suite("Decoding through a session")
struct DecodingSessionTests {
    /// Compressible but not trivial: words and numbers, as a log or CSV would be.
    static let text: [UInt8] = {
        var out: [UInt8] = []
        out.reserveCapacity(700_000)
        var state: UInt32 = 12345
        while out.count < 700_000 {
            state = state &* 1_103_515_245 &+ 12345
            out += Array("row \(state % 10_000),alpha,beta,\(state >> 16)\n".utf8)
        }
        return out
    }()

    static func encoded(_ coding: ContentCoding, _ bytes: [UInt8]) -> [UInt8] {
        switch coding {
        case .gzip: Compression.gzip(bytes)
        case .deflate: Compression.zlib(bytes)
        case .br: Compression.brotli(bytes)
        case .zstd: Compression.zstd(bytes)
        }
    }

    @Test(arguments: ContentCoding.allCases)
    func everyCodingIsDecodedToTheFile(_ coding: ContentCoding) async throws {
        let dir = try makeTemporaryDirectory()
        let body = Self.encoded(coding, Self.text)
        try await withServer({ _ in .ok(body, headers: [("Content-Type", "text/csv"), ("Content-Encoding", coding.rawValue)]) }) { server in
            let task = Session().downloadTask(with: request(server.baseURL + "/rows.csv"), destination: .directory(dir))
            #expect(await task.outcome() == nil)
            #expect(fingerprint(contents(dir + "/rows.csv")) == fingerprint(Self.text))
            #expect(task.decodedCodings == [coding])
            #expect(task.countOfBytesDecoded == Int64(Self.text.count))
            #expect(task.countOfBytesReceived == Int64(body.count))
            // Without --compressed the request asks for identity, as wget does.
            #expect(server.requests.first?.header("Accept-Encoding") == "identity")
        }
        #expect(files(in: dir) == ["rows.csv"])
    }

    @Test(arguments: [1, 7, 4096])
    func chunkedStackedCodingsDecodeInReverseOrder(chunk: Int) async throws {
        let body = Compression.gzip(Compression.zlib(Self.text))
        try await withServer({ _ in .ok(body, headers: [("Content-Encoding", "deflate, gzip")]).chunked(chunk) }) { server in
            let (data, _) = try await Session().data(for: request(server.baseURL + "/s"))
            #expect(fingerprint(data) == fingerprint(Self.text))
        }
    }

    @Test func decodingCanBeSwitchedOff() async throws {
        var configuration = SessionConfiguration.default
        configuration.decodesContentEncoding = false
        let body = Compression.gzip(Self.text)
        try await withServer({ _ in .ok(body, headers: [("Content-Encoding", "gzip")]) }) { server in
            let (data, _) = try await Session(configuration: configuration).data(for: request(server.baseURL + "/s"))
            #expect(fingerprint(data) == fingerprint(body))
        }
    }

    enum Damage: String, CaseIterable, Sendable { case truncated, flippedCRC, garbage }

    @Test(arguments: Damage.allCases)
    func corruptDataFailsAndPublishesNothing(_ damage: Damage) async throws {
        var body = Compression.gzip(Self.text)
        switch damage {
        case .truncated: body.removeLast(body.count / 3)
        case .flippedCRC: body[body.count - 6] ^= 0xFF
        case .garbage: body.replaceSubrange(20..<60, with: [UInt8](repeating: 0xAB, count: 40))
        }
        let dir = try makeTemporaryDirectory()
        try await withServer({ [body] _ in .ok(body, headers: [("Content-Encoding", "gzip")]) }) { server in
            let task = Session(configuration: .background(identifier: "decode-\(damage)"))
                .downloadTask(with: request(server.baseURL + "/f.txt"), destination: .directory(dir))
            let error = await task.outcome()
            #expect(error == SessionError.decodingFailed)
            #expect(error?.category == .protocol)
            #expect(error?.resumeData == nil)
        }
        // Neither the final name nor a part nor its state: corrupt data is worth nothing.
        #expect(files(in: dir) == [])
    }

    @Test func decompressionBombStopsAtTheLimit() async throws {
        var configuration = SessionConfiguration.default
        configuration.maximumBodyBytes = 1 << 20
        let bomb = Compression.gzip([UInt8](repeating: 0, count: 64 << 20))  // ~64 KiB on the wire
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in .ok(bomb, headers: [("Content-Encoding", "gzip")]) }) { server in
            let task = Session(configuration: configuration).downloadTask(with: request(server.baseURL + "/z"), destination: .directory(dir))
            let error = await task.outcome()
            #expect(error == SessionError.tooLarge)
            #expect(error?.category == .generic)
        }
        #expect(files(in: dir) == [])
    }

    @Test func announcedLengthOverTheLimitStoresNothing() async throws {
        var configuration = SessionConfiguration.default
        configuration.maximumBodyBytes = 1000
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in .ok(bytes(5000)) }) { server in
            let task = Session(configuration: configuration).downloadTask(with: request(server.baseURL + "/big"), destination: .directory(dir))
            #expect(await task.outcome() == SessionError.tooLarge)
            let data = Session(configuration: configuration).dataTask(with: request(server.baseURL + "/big"))
            #expect(await data.outcome() == SessionError.tooLarge)
        }
        #expect(files(in: dir) == [])
    }

    /// A decoded transfer cut short is retried from byte 0 (never with a Range), and the file
    /// is still exact.
    @Test(arguments: [10, 5000, 40_000])
    func interruptedDecodedTransferRestartsFromZero(cut: Int) async throws {
        let counter = ResumeTests.Counter()
        let body = Compression.gzip(Self.text)
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in
            let response = TestResponse.ok(body, headers: [("Content-Encoding", "gzip"), ("ETag", "\"g1\"")])
            return counter.next() == 1 ? response.closing(afterBodyBytes: cut) : response
        }) { server in
            let session = Session(configuration: ResumeTests.fastRetries(background: "decode-restart-\(cut)"))
            let (path, _) = try await session.download(request(server.baseURL + "/rows.csv"), to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(Self.text))
            #expect(server.requests.count == 2)
            #expect(server.requests.allSatisfy { $0.header("Range") == nil })
        }
        #expect(files(in: dir) == ["rows.csv"])
    }

    /// An identity part is continued with `Accept-Encoding: identity` even when the session
    /// asks for compression; a server answering the range in gzip anyway starts it over.
    @Test func resumeAsksForTheStoredCodingAndRefusesAnother() async throws {
        let counter = ResumeTests.Counter()
        // Incompressible, so its gzip form is as long and a range of it plausible.
        let source = randomBytes(200_000, seed: 0x9E37_79B9_7F4A_7C15)
        let dir = try makeTemporaryDirectory()
        var configuration = ResumeTests.fastRetries()
        configuration.defaultHeaders.set("Accept-Encoding", ContentCoding.acceptAll)
        try await withServer({ request in
            switch counter.next() {
            case 1:
                return TestResponse.serving(source, to: request, etag: "\"v1\"").closing(afterBodyBytes: 50_000)
            case 2:
                // A range of the gzip representation: other bytes entirely.
                let gz = Compression.gzip(source)
                return .status(206, body: Array(gz[50_000...]), headers: [
                    ("Content-Range", "bytes 50000-\(gz.count - 1)/\(gz.count)"), ("Content-Encoding", "gzip"), ("ETag", "\"v1\""),
                ])
            default:
                return TestResponse.serving(source, to: request, etag: "\"v1\"")
            }
        }) { server in
            let (path, _) = try await Session(configuration: configuration).download(request(server.baseURL + "/f.bin"), to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(source))
            let requests = server.requests
            #expect(requests.count == 3)
            #expect(requests[0].header("Accept-Encoding") == ContentCoding.acceptAll)
            #expect(requests[1].header("Range") == "bytes=50000-")
            #expect(requests[1].header("Accept-Encoding") == "identity")
            #expect(requests[2].header("Range") == nil)
        }
    }

    final class PayloadDelegate: SessionDelegate {
        let decode: Bool
        let asked = ResumeTests.Counter()
        init(decode: Bool) { self.decode = decode }
        func downloadTask(_ task: DownloadTask, shouldDecodePayloadOfMIMEType mimeType: String?) async -> Bool {
            _ = asked.next()
            return decode
        }
    }

    @Test(arguments: [true, false])
    func gzipPayloadIsTheDelegatesDecision(decode: Bool) async throws {
        let gz = Compression.gzip(Self.text)
        let dir = try makeTemporaryDirectory()
        let delegate = PayloadDelegate(decode: decode)
        try await withServer({ _ in .ok(gz, headers: [("Content-Type", "application/gzip")]) }) { server in
            let session = Session(configuration: .default, delegate: delegate)
            let task = session.downloadTask(with: request(server.baseURL + "/data.csv.gz"), destination: .directory(dir))
            #expect(await task.outcome() == nil)
            let expected = decode ? Self.text : gz
            #expect(fingerprint(contents(dir + (decode ? "/data.csv" : "/data.csv.gz"))) == fingerprint(expected))
            #expect(delegate.asked.value.withLock { $0 } == 1)
        }
        #expect(files(in: dir) == [decode ? "data.csv" : "data.csv.gz"])
    }

    /// Apache's `AddEncoding x-gzip .gz` labels the file itself as a content coding: it is kept
    /// as the .gz file it is (wget's rule), unless the delegate asks for the payload decoded.
    @Test func gzipFileLabelledAsContentEncodingIsKept() async throws {
        let gz = Compression.gzip(Self.text)
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in .ok(gz, headers: [("Content-Type", "application/x-tar"), ("Content-Encoding", "gzip")]) }) { server in
            let task = Session().downloadTask(with: request(server.baseURL + "/backup.tar.gz"), destination: .directory(dir))
            #expect(await task.outcome() == nil)
            #expect(task.decodedCodings == [])
        }
        #expect(fingerprint(contents(dir + "/backup.tar.gz")) == fingerprint(gz))
    }

    @Test func unknownCodingIsStoredAsSent() async throws {
        let body = bytes(1000)
        try await withServer({ _ in .ok(body, headers: [("Content-Encoding", "compress")]) }) { server in
            let (data, _) = try await Session().data(for: request(server.baseURL + "/u"))
            #expect(Array(data) == body)
        }
    }
}
