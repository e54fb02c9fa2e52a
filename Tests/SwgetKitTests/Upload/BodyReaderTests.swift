#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import SwgetKit

@Suite("Body reader and request bodies")
struct BodyReaderTests {
    @Test(arguments: [0, 1, 5, 64 * 1024, 64 * 1024 + 1, 3 * 64 * 1024 - 1])
    func fileLargerThanTheChunkIsReadInBoundedChunks(_ size: Int) throws {
        let dir = try UploadScratchDirectory()
        let content = patternBytes(size)
        let path = try dir.write("f.bin", content)
        var reader = try BodyReader(filePath: path, chunkSize: 64 * 1024)
        #expect(reader.contentLength == Int64(size))
        var chunks = 0
        var out: [UInt8] = []
        while let chunk = try reader.next() {
            #expect(chunk.count <= 64 * 1024)
            chunks += 1
            out += chunk
            #expect(reader.bytesRead == Int64(out.count))
        }
        #expect(out == content)
        #expect(chunks == (size + 64 * 1024 - 1) / (64 * 1024))
        #expect(reader.isAtEnd)
        #expect(try reader.next() == nil)
    }

    @Test func fourMiBThroughSmallBuffersNeverReadsMoreThanAsked() throws {
        let dir = try UploadScratchDirectory()
        let content = patternBytes(4 << 20, seed: 11)
        let path = try dir.write("big.bin", content)
        var reader = try #require(try RequestBody.file(path: path).makeReader())
        #expect(reader.chunkSize == BodyReader.defaultChunkSize)
        var out: [UInt8] = []
        out.reserveCapacity(content.count)
        let sizes = [1, 4095, 4096, 4097, 256 * 1024, 100_000]
        var turn = 0
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let want = sizes[turn % sizes.count]
            turn += 1
            let got = try buffer.withUnsafeMutableBytes { raw in try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[..<want])) }
            #expect(got <= want)
            if got == 0 { break }
            out += buffer[..<got]
        }
        #expect(out == content)
    }

    @Test func aFileThatShrinksMidReadFailsClearly() throws {
        let dir = try UploadScratchDirectory()
        let path = try dir.write("shrinks.bin", patternBytes(300_000))
        var reader = try BodyReader(filePath: path, chunkSize: 100_000)
        #expect(try reader.next()?.count == 100_000)
        #expect(truncate(path, 150_000) == 0)
        do {
            _ = try reader.next()
            Issue.record("a short file must fail")
        } catch {
            #expect(error.code == .shrank && error.expected == 300_000 && error.actual == 150_000)
            #expect(error.description == "'\(path)' shrank while being sent (300000 bytes expected, it ended at 150000)")
        }
    }

    @Test func aFileThatGrowsSendsTheLengthMeasuredAtOpen() throws {
        let dir = try UploadScratchDirectory()
        let path = try dir.write("grows.bin", Array("12345".utf8))
        var reader = try BodyReader(filePath: path)
        try dir.write("grows.bin", Array("1234567890".utf8))
        #expect(try drain(&reader, chunk: 3) == Array("12345".utf8))
        // The next send reopens and measures again.
        var again = try #require(try RequestBody.file(path: path).makeReader())
        #expect(again.contentLength == 10)
        #expect(try drain(&again, chunk: 64).count == 10)
    }

    @Test func unreadablePathsFailWhenTheReaderIsMade() throws {
        let dir = try UploadScratchDirectory()
        let missing = dir.path + "/missing"
        #expect(throws: BodyReadError(.open, path: missing, errno: ENOENT)) { try BodyReader(filePath: missing) }
        #expect(throws: BodyReadError(.open, path: missing, errno: ENOENT)) { try RequestBody.file(path: missing).contentLength }
        #expect(throws: BodyReadError(.notRegularFile, path: dir.path)) { try BodyReader(filePath: dir.path) }
        #expect(throws: BodyReadError(.open, path: "a\u{0}b", errno: EINVAL)) { try BodyReader(filePath: "a\u{0}b") }
        let fifo = dir.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Opened with O_NONBLOCK: a FIFO without a writer must not block the event loop.
        #expect(throws: BodyReadError(.notRegularFile, path: fifo)) { try RequestBody.file(path: fifo).contentLength }
        #expect(throws: BodyReadError(.notRegularFile, path: fifo)) { try BodyReader(filePath: fifo) }
        #expect(throws: BodyReadError(.notRegularFile, path: "/dev/null")) { try BodyReader(filePath: "/dev/null") }
        let form = try MultipartFormData(parts: [.value(name: "a", "b"), .file(name: "f", path: missing)])
        #expect(throws: BodyReadError(.open, path: missing, errno: ENOENT)) { try RequestBody.multipart(form).makeReader() }
        #expect(BodyReadError(.open, path: missing, errno: ENOENT).description == "cannot open '\(missing)': No such file or directory")
    }

    @Test func dataReaderAndChunkBounds() throws {
        var reader = BodyReader(bytes: Array("hello world".utf8), chunkSize: 4)
        #expect(try reader.next() == Array("hell".utf8))
        #expect(try reader.next(maxBytes: 0) == Array("o".utf8))          // clamped to 1
        #expect(try reader.next(maxBytes: -5) == Array(" ".utf8))
        #expect(try reader.next(maxBytes: .max) == Array("world".utf8))   // clamped, then to what is left
        #expect(try reader.next() == nil)
        var empty = BodyReader(bytes: [])
        #expect(empty.contentLength == 0 && empty.isAtEnd)
        #expect(try empty.next() == nil)
        #expect(BodyReader(bytes: [1], chunkSize: .max).chunkSize == BodyReader.maxChunkSize)
        #expect(BodyReader(bytes: [1], chunkSize: -1).chunkSize == 1)
    }

    @Test func copiesReadIndependentlyAndCloseStops() throws {
        let dir = try UploadScratchDirectory()
        let path = try dir.write("f", patternBytes(1000))
        var a = try BodyReader(filePath: path, chunkSize: 300)
        _ = try a.next()
        var b = a
        #expect(try drain(&a, chunk: 300) == Array(patternBytes(1000)[300...]))
        #expect(try drain(&b, chunk: 1000) == Array(patternBytes(1000)[300...]))
        var c = try BodyReader(filePath: path)
        c.close()
        #expect(c.isAtEnd)
        #expect(try c.next() == nil)
    }

    @Test func requestBodyKinds() async throws {
        let dir = try UploadScratchDirectory()
        let path = try dir.write("f.txt", Array("abc".utf8))
        let form = try MultipartFormData(parts: [.file(name: "f", path: path)], boundary: "B")
        #expect(try RequestBody.data([1, 2]).contentLength == 2)
        #expect(try RequestBody.file(path: path).contentLength == 3)
        #expect(try RequestBody.multipart(form).contentLength == form.encodedLength(fileLength: { (_: String) throws(Never) -> Int64? in 3 }))
        #expect(RequestBody.multipart(form).impliedContentType == "multipart/form-data; boundary=B")
        #expect(RequestBody.data([]).impliedContentType == nil)
        for body in [RequestBody.data([]), .file(path: path), .multipart(form)] {
            #expect(body.isReplayable)
            #expect(try body.makeReader() != nil)
        }

        let replayable = BodyStream(length: 2) { AsyncThrowingStream { $0.yield([1, 2]); $0.finish() } }
        #expect(RequestBody.stream(replayable).isReplayable)
        #expect(try RequestBody.stream(replayable).contentLength == 2)
        #expect(try RequestBody.stream(replayable).makeReader() == nil)
        for _ in 0..<2 {
            var collected: [UInt8] = []
            for try await chunk in try #require(replayable.makeStream()) { collected += chunk }
            #expect(collected == [1, 2])
        }

        let once = BodyStream.once(AsyncThrowingStream { $0.yield([9]); $0.finish() })
        #expect(!RequestBody.stream(once).isReplayable)
        #expect(try RequestBody.stream(once).contentLength == nil)
        #expect(once.makeStream() != nil)
        #expect(once.makeStream() == nil)   // standard input cannot be read twice
        #expect(once == once && once != BodyStream.once(AsyncThrowingStream { $0.finish() }))
        #expect(BodyStream(length: -4) { AsyncThrowingStream { $0.finish() } }.length == 0)
    }
}
