#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A request body: the counterpart of NSURLRequest's `HTTPBody` / `HTTPBodyStream` and of the
/// sources of NSURLSession's upload tasks (from data, from a file, from a stream), plus
/// multipart forms.
///
/// A body is a description, not an open resource: each send opens it afresh (`makeReader()`
/// for data, files and forms; `BodyStream.makeStream()` for streams), so a 307/308 redirect,
/// an authentication challenge or a retry can send it again. Whether that is possible is
/// `isReplayable`; a body that is not (standard input) must fail the replay with a clear error,
/// as NSURLSession does when `needNewBodyStream` provides no stream.
///
/// Framing: `Content-Length` when the length is known (always for `.data`, `.file` and
/// `.multipart`; for `.stream` when it was given), chunked transfer coding otherwise.
public enum RequestBody: Sendable, Equatable {
    /// Bytes in memory.
    case data([UInt8])
    /// A regular file, opened for each send; its length is the `fstat` size at that moment and
    /// exactly that many bytes are sent (a file that shrinks fails the send; bytes appended
    /// meanwhile are not sent). Pipes, character devices (`/dev/stdin`, `<(cmd)`) and
    /// directories are refused by the reader: send those as `.stream`.
    case file(path: String)
    /// Bytes produced asynchronously (standard input, a generator): see `BodyStream`.
    case stream(BodyStream)
    /// A `multipart/form-data` form; its file parts are read like `.file`.
    case multipart(MultipartFormData)

    /// True when the body can be sent again: data, files and forms always (files are reopened;
    /// a file deleted meanwhile then fails to open), a stream only when its factory can make a
    /// new stream.
    public var isReplayable: Bool {
        switch self {
        case .data, .file, .multipart: true
        case .stream(let stream): stream.isReplayable
        }
    }

    /// The `Content-Type` the body implies (the form's, with its boundary), or nil: the caller's
    /// default (curl's `application/x-www-form-urlencoded` for `--data`, none for uploads)
    /// applies, and a Content-Type set on the request always wins.
    public var impliedContentType: String? {
        if case .multipart(let form) = self { return form.contentType }
        return nil
    }

    /// The length to announce, or nil for chunked. Files are measured with `stat` (one call per
    /// file, no open), which can differ from what a later send measures: the reader's
    /// `contentLength` is the one to put in `Content-Length`. Use this for early checks and
    /// progress totals (NSURLSession's `countOfBytesExpectedToSend`).
    public var contentLength: Int64? {
        get throws(BodyReadError) {
            switch self {
            case .data(let bytes): return Int64(bytes.count)
            case .file(let path): return try Self.statLength(path)
            case .stream(let stream): return stream.length
            case .multipart(let form): return try form.encodedLength { (path: String) throws(BodyReadError) -> Int64? in try Self.statLength(path) }
            }
        }
    }

    /// Opens the body for one send: a reader over the data, the file or the form (files are
    /// opened and measured now, so an unreadable file fails here, before connecting). Nil for
    /// `.stream`, whose bytes come from `BodyStream.makeStream()` instead.
    public func makeReader(chunkSize: Int = BodyReader.defaultChunkSize) throws(BodyReadError) -> BodyReader? {
        switch self {
        case .data(let bytes): return BodyReader(bytes: bytes, chunkSize: chunkSize)
        case .file(let path): return try BodyReader(filePath: path, chunkSize: chunkSize)
        case .multipart(let form): return try BodyReader(multipart: form, chunkSize: chunkSize)
        case .stream: return nil
        }
    }

    private static func statLength(_ path: String) throws(BodyReadError) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw BodyReadError(.open, path: path, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw BodyReadError(.notRegularFile, path: path) }
        return Int64(info.st_size)
    }
}

/// A body produced as an asynchronous sequence of byte chunks (NSURLRequest's
/// `HTTPBodyStream`, NSURLSession's `uploadTask(withStreamedRequest:)`).
///
/// A stream is single-use; replaying the body needs a new one, so the body holds a factory
/// (the `needNewBodyStream` analogue). A stream body can be replayed only when the factory can
/// make a new stream that yields the same bytes (e.g. one that re-reads a generator);
/// standard input cannot be read twice: use `once(length:_:)`, whose second `makeStream()`
/// returns nil, and fail a 307/308 or retry with a clear error.
///
/// Chunks may have any size, including empty (skipped by the sender). With a `length`, the
/// stream must yield exactly that many bytes: more or fewer is an error of the sender's.
/// Two `BodyStream` values are equal when they are the same stream (identity, not content).
public struct BodyStream: Sendable, Equatable {
    /// The number of bytes the stream yields when known (sent as `Content-Length`), else nil
    /// (chunked).
    public let length: Int64?
    /// True when `makeStream()` can be called again for a replay.
    public let isReplayable: Bool
    private let source: Source

    /// A replayable stream body: `makeStream` is called once per send and must produce the
    /// same bytes each time.
    public init(length: Int64? = nil, makeStream: @escaping @Sendable () -> AsyncThrowingStream<[UInt8], any Error>) {
        self.length = length.map { max(0, $0) }
        self.isReplayable = true
        self.source = Source(.factory(makeStream))
    }

    /// A stream that can be sent once (standard input, a socket): the first `makeStream()`
    /// returns it, later calls return nil.
    public static func once(length: Int64? = nil, _ stream: AsyncThrowingStream<[UInt8], any Error>) -> BodyStream {
        BodyStream(length: length, source: Source(.once(stream)))
    }

    private init(length: Int64?, source: Source) {
        self.length = length.map { max(0, $0) }
        self.isReplayable = false
        self.source = source
    }

    /// A new stream for one send, or nil when a single-use stream was already handed out.
    public func makeStream() -> AsyncThrowingStream<[UInt8], any Error>? {
        source.make()
    }

    /// True when both are copies of the same body (one stream source); bytes are never compared.
    public static func == (lhs: BodyStream, rhs: BodyStream) -> Bool { lhs.source === rhs.source }

    private final class Source: Sendable {
        enum Kind: Sendable {
            case factory(@Sendable () -> AsyncThrowingStream<[UInt8], any Error>)
            case once(AsyncThrowingStream<[UInt8], any Error>)
            case used
        }

        private let state: Mutex<Kind>

        init(_ kind: Kind) { state = Mutex(kind) }

        func make() -> AsyncThrowingStream<[UInt8], any Error>? {
            let kind = state.withLock { kind -> Kind in
                let current = kind
                if case .once = current { kind = .used }
                return current
            }
            switch kind {
            case .factory(let make): return make()
            case .once(let stream): return stream
            case .used: return nil
            }
        }
    }
}
