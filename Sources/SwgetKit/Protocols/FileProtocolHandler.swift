#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The built-in handler of `file://` URLs: a local file copied through the download machinery
/// (progress, `.part`, resume, naming) as if a server sent it.
///
/// - Only local files: the host must be empty or `localhost`. The path is percent-decoded.
/// - A regular file answers `200` with `Content-Length`, `Last-Modified` (its mtime) and a strong
///   `ETag` made of its inode, size and mtime in nanoseconds; `Range: bytes=N-` whose `If-Range`
///   matches gives `206` (or `416` at or past the end), so `-c` and interrupted downloads continue.
///   Other files that are not directories (a FIFO, a device) are read to their end, whole.
/// - A directory, a missing or unreadable file fail with ``SessionError/fileIO`` (exit 3, a
///   local file problem), naming the path. A file that shrinks while it is read fails the same
///   way (its stored bytes are kept and validated again on the next attempt).
public struct FileProtocolHandler: ProtocolHandler {
    /// Bytes read and handed over at a time.
    static let chunkSize = 1 << 20

    /// The handler.
    public init() {}

    /// True for file URLs.
    public func canHandle(_ request: Request) -> Bool {
        request.url.scheme?.lowercased() == "file"
    }

    /// Loads `request` as the type's documentation says, reporting to `client`.
    public func startLoading(_ request: Request, client: ProtocolClient) async {
        let url = request.url
        let method = request.sentMethod
        guard method == "GET" || method == "HEAD" else {
            return client.didFail(with: SessionError.unsupportedURL.with("file: URLs can only be read (GET or HEAD)").at(url))
        }
        let host = url.host(percentEncoded: false) ?? ""
        guard host.isEmpty || host.lowercased() == "localhost" else {
            return client.didFail(with: SessionError.unsupportedURL.with("file: URLs name local files only (not on '\(DisplayText.sanitize(host))')").at(url))
        }
        let path = url.path(percentEncoded: false)
        let shown = DisplayText.sanitize(path)
        guard !path.isEmpty, !path.containsByte(0) else {
            return client.didFail(with: SessionError.unsupportedURL.with("the file: URL names no file").at(url))
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            return client.didFail(with: SessionError.fileIO.with("cannot open '\(shown)': \(String(cString: strerror(code)))").errno(code).at(url))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            return client.didFail(with: SessionError.fileIO.with("cannot read '\(shown)': \(String(cString: strerror(code)))").errno(code).at(url))
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            return client.didFail(with: SessionError.fileIO.with("'\(shown)' is a directory, not a file").errno(EISDIR).at(url))
        }
        // Reads block from here on (O_NONBLOCK only kept a FIFO without writer from hanging open).
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        let regular = (info.st_mode & S_IFMT) == S_IFREG
        let response: Response
        var offset: Int64 = 0
        var remaining: Int64?
        if regular {
            let length = Int64(info.st_size)
            let nanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            let etag = "\"\(String(UInt64(info.st_ino), radix: 16))-\(String(length, radix: 16))-\(String(nanoseconds, radix: 16))\""
            let modified = CookieDate.format(Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec)))
            let range = RangeRequest(request.headers)
            let answer = RangeAnswer.decide(range, length: length, validatorMatches: range.ifRange == etag || range.ifRange == modified)
            response = answer.response(url: url, length: length, extra: ["ETag": etag, "Last-Modified": modified],
                                       headOnly: method == "HEAD")
            if case .partial(let start) = answer { offset = start }
            remaining = answer.bodyLength(of: length)
        } else {
            response = Response(url: url, statusCode: 200, reasonPhrase: "OK", headers: [:],
                                expectedContentLength: method == "HEAD" ? 0 : nil)
        }
        guard await client.didReceive(response), method == "GET", remaining != 0 else { return client.didFinishLoading() }
        if let error = await copy(fd, from: offset, count: remaining, positional: regular, client: client) {
            return client.didFail(with: error.at(url))
        }
        client.didFinishLoading()
    }

    /// Hands `count` bytes from `offset` (nil: to the end) to `client`, a chunk at a time.
    private func copy(_ fd: Int32, from offset: Int64, count: Int64?, positional: Bool, client: ProtocolClient) async -> SessionError? {
        var position = offset
        var left = count
        while !client.isCancelled {
            let want = left.map { Int(min(Int64(Self.chunkSize), $0)) } ?? Self.chunkSize
            if want == 0 { return nil }
            var failure: Int32 = 0
            let chunk = [UInt8](unsafeUninitializedCapacity: want) { buffer, initialized in
                while true {
                    let n = positional ? pread(fd, buffer.baseAddress, want, off_t(position)) : read(fd, buffer.baseAddress, want)
                    if n < 0 && errno == EINTR { continue }
                    if n < 0 { failure = errno }
                    initialized = max(0, n)
                    return
                }
            }
            if failure != 0 {
                return SessionError.fileIO.with("read failed: \(String(cString: strerror(failure)))").errno(failure)
            }
            if chunk.isEmpty {
                return left == nil ? nil : SessionError.fileIO.with("the file shrank while it was read")
            }
            position += Int64(chunk.count)
            left = left.map { $0 - Int64(chunk.count) }
            await client.didLoad(bytes: chunk)
        }
        return nil
    }
}
