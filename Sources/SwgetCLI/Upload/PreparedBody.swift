#if canImport(Glibc)
import Glibc
#endif
import SwgetKit

/// The body of the command's requests, made from a ``BodyPlan`` before anything connects:
/// `--data` pieces and standard input inside a form are read now (bounded in memory), files
/// that will stream are opened once to prove they can be, and standard input to stream becomes
/// a single-use ``BodyStream``. A file that cannot be read stops the run with exit 3 and no
/// request sent; a form SwgetKit refuses (a name with a line break, too many parts) with exit 2.
struct PreparedBody: Sendable {
    /// The request method.
    let method: String
    /// The body, or nil.
    let body: RequestBody?
    /// Fields to add unless the request (`--header`) has them.
    let defaultHeaders: [BodyPlan.Header]
    /// `--upload-file FILE`'s path, whose name completes a URL ending in `/`.
    let uploadPath: String?

    /// Why a body could not be prepared.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        let status: ExitStatus
    }

    /// Prepares `plan`. `standardInput` is the descriptor of standard input (tests pass another).
    init(_ plan: BodyPlan, standardInput: Int32 = 0, limit: Int = PlannedBody.defaultInMemoryLimit) throws(Failure) {
        method = plan.method
        defaultHeaders = plan.defaultHeaders
        uploadPath = plan.uploadPath
        guard let planned = plan.body else {
            body = nil
            return
        }
        if case .file(let path) = planned, let descriptor = try Self.openSpecialFile(path) {
            // A pipe or a device (`--upload-file <(cmd)`, `/dev/stdin`): streamed once, chunked.
            body = .stream(BodyStream.reading(fileDescriptor: descriptor))
            return
        }
        let input = StandardInputOnce(descriptor: standardInput)
        let body: RequestBody
        do {
            body = try planned.requestBody(limit: limit, read: { source in
                switch source {
                case .file(let path): try Self.readWhole(path, limit: limit)
                case .standardInput: try input.read(limit: limit)
                }
            }, standardInputStream: { BodyStream.reading(fileDescriptor: standardInput) })
        } catch let error as BodyArgumentError {
            throw Failure(description: error.description, status: error.isUsageError ? .usage : .fileIO)
        } catch let error as MultipartError {
            throw Failure(description: error.description, status: .usage)
        } catch let error as BodyReadError {
            throw Failure(description: error.description, status: .fileIO)
        } catch {
            throw Failure(description: "cannot prepare the request body: \(error)", status: .fileIO)
        }
        // Files stream at send time: open them now so that a missing or unreadable one stops
        // the run before any request (and the reader measures them as the send will).
        do {
            var reader = try body.makeReader()
            reader?.close()
        } catch {
            throw Failure(description: error.description, status: .fileIO)
        }
        self.body = body
    }

    /// Applies the method, body and default fields to `request`.
    func apply(to request: inout Request) {
        request.method = method
        request.body = body
        for header in defaultHeaders where !request.headers.contains(header.name) {
            request.headers.set(header.name, header.value)
        }
    }

    /// True when the body is read once as it is sent (standard input, a pipe): it can go to
    /// one URL only, and cannot follow a 307/308 or be retried.
    var isSingleUse: Bool {
        if case .stream = body { return true }
        return false
    }

    /// An open descriptor for `path` when it is a pipe, socket or device (nil for a regular
    /// file, which streams with its length, and for a path that does not exist: the reader
    /// reports that).
    private static func openSpecialFile(_ path: String) throws(Failure) -> Int32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let type = info.st_mode & S_IFMT
        guard type != S_IFREG else { return nil }
        guard type != S_IFDIR else {
            throw Failure(description: BodyReadError(.notRegularFile, path: path).description, status: .fileIO)
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Failure(description: BodyReadError(.open, path: path, errno: errno).description, status: .fileIO)
        }
        return descriptor
    }

    /// The whole of the file at `path` (a regular file, a pipe such as `<(cmd)`), refusing more
    /// than `limit` bytes.
    static func readWhole(_ path: String, limit: Int) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BodyReadError(.open, path: path, errno: errno) }
        defer { close(descriptor) }
        return try readAll(descriptor, name: path, limit: limit)
    }

    /// Everything `descriptor` gives until its end, refusing more than `limit` bytes.
    static func readAll(_ descriptor: Int32, name: String, limit: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw BodyReadError(.read, path: name, errno: errno)
            }
            if count == 0 { return bytes }
            guard bytes.count + count <= limit else { throw BodyArgumentError.tooLargeForMemory(limit) }
            bytes += chunk[..<count]
        }
    }
}

/// Standard input read whole, once: a second `--data @-` (or form field `<-`) gets nothing
/// more, as in curl.
private final class StandardInputOnce {
    let descriptor: Int32
    private var consumed = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func read(limit: Int) throws -> [UInt8] {
        guard !consumed else { return [] }
        consumed = true
        return try PreparedBody.readAll(descriptor, name: "standard input", limit: limit)
    }
}
