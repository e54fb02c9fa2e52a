#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import SwgetKit

/// The pieces around upload tasks: bodies read from a descriptor (standard input's shape),
/// the rule for sending a request again on a new connection after a reused one closed, and the
/// refusal of bodies and methods by the ftp, file and data handlers.
@Suite("Upload plumbing: descriptor bodies, resend rule, non-HTTP refusals")
struct UploadPlumbingTests {
    /// Everything `stream` yields.
    static func collect(_ stream: AsyncThrowingStream<[UInt8], any Error>) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in stream { bytes += chunk }
        return bytes
    }

    @Test("a pipe is read to its end in bounded chunks, with no length, once")
    func pipe() async throws {
        var ends: [Int32] = [0, 0]
        try #require(Glibc.pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        defer { close(readEnd) }
        let payload = patternBytes(1_000_003, seed: 41)
        let writer = Thread {
            var done = 0
            while done < payload.count {
                let n = payload.withUnsafeBytes { Glibc.write(writeEnd, $0.baseAddress.map { $0 + done }, payload.count - done) }
                if n <= 0 { break }
                done += n
            }
            close(writeEnd)
        }
        writer.start()
        let body = BodyStream.reading(fileDescriptor: readEnd, chunkSize: 64 * 1024)
        #expect(body.length == nil)
        #expect(!body.isReplayable)
        let stream = try #require(body.makeStream())
        var bytes: [UInt8] = []
        for try await chunk in stream {
            #expect(!chunk.isEmpty && chunk.count <= 64 * 1024)
            bytes += chunk
        }
        #expect(bytes == payload)
        #expect(body.makeStream() == nil)
    }

    @Test("a regular file is read from its current offset, with the rest as the length")
    func regularFile() async throws {
        let dir = try UploadScratchDirectory()
        let payload = patternBytes(300_000, seed: 43)
        let path = try dir.write("in.bin", payload)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(lseek(descriptor, 1000, SEEK_SET) == 1000)
        let body = BodyStream.reading(fileDescriptor: descriptor)
        #expect(body.length == Int64(payload.count - 1000))
        let bytes = try await Self.collect(try #require(body.makeStream()))
        #expect(bytes == Array(payload[1000...]))
    }

    @Test("a descriptor that cannot be read fails the stream with a read error")
    func unreadableDescriptor() async throws {
        let dir = try UploadScratchDirectory()
        let path = try dir.write("w.bin", [1, 2, 3])
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let stream = try #require(BodyStream.reading(fileDescriptor: descriptor).makeStream())
        await #expect(throws: BodyReadError.self) { _ = try await Self.collect(stream) }
    }

    struct ResendCase: Sendable, CustomTestStringConvertible {
        let method: String
        let streamConsumed: Bool
        let bytesSent: Int64
        let resend: Bool
        var testDescription: String { "\(method), stream consumed \(streamConsumed), \(bytesSent) sent → \(resend)" }
    }

    static let resendCases: [ResendCase] = [
        ResendCase(method: "GET", streamConsumed: false, bytesSent: 0, resend: true),
        ResendCase(method: "POST", streamConsumed: false, bytesSent: 0, resend: true),
        ResendCase(method: "POST", streamConsumed: false, bytesSent: 1, resend: false),
        ResendCase(method: "PATCH", streamConsumed: false, bytesSent: 65_536, resend: false),
        ResendCase(method: "put", streamConsumed: false, bytesSent: 65_536, resend: true),
        ResendCase(method: "DELETE", streamConsumed: false, bytesSent: 10, resend: true),
        ResendCase(method: "PUT", streamConsumed: true, bytesSent: 0, resend: false),
        ResendCase(method: "POST", streamConsumed: true, bytesSent: 0, resend: false),
    ]

    @Test("a request goes again after a stale keep-alive connection only when that repeats nothing", arguments: resendCases)
    func resendRule(_ c: ResendCase) {
        #expect(ExchangeRunner.mayResend(method: c.method, streamConsumed: c.streamConsumed, bytesSent: c.bytesSent) == c.resend)
    }

    @Test("ftp, file and data URLs refuse a body or a method other than GET and HEAD, before any I/O",
          arguments: [("file:///etc/hostname", "PUT", true), ("file:///etc/hostname", "DELETE", false),
                      ("data:,hello", "POST", true), ("ftp://127.0.0.1:9/x", "PUT", true), ("ftp://127.0.0.1:9/x", "MKCOL", false)])
    func nonHTTPRefusals(_ url: String, _ method: String, _ withBody: Bool) async throws {
        var request = try #require(Request(string: url))
        request.method = method
        if withBody { request.body = .data([1, 2, 3]) }
        let session = Session()
        defer { session.finishTasksAndInvalidate() }
        let error = await session.dataTask(with: request).outcome()
        #expect(error == SessionError.unsupportedURL)
        #expect(error?.message.contains(withBody ? "a request body" : "the method \(method)") == true, "\(error?.message ?? "")")
    }

    @Test("file and data URLs still answer GET and HEAD")
    func nonHTTPFetches() async throws {
        let session = Session()
        defer { session.finishTasksAndInvalidate() }
        let (data, _) = try await session.data(for: try #require(Request(string: "data:,hello")))
        #expect(Array(data) == Array("hello".utf8))
    }
}
