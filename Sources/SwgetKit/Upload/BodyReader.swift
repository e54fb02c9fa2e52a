#if canImport(Glibc)
import Glibc
#endif

/// Reads one send of a body (data, a file, or a multipart form) in bounded chunks with flat
/// memory: a file's bytes are read with `pread` straight into the caller's buffer, never whole.
///
/// Made by `RequestBody.makeReader()` (or the initialisers) once per send: files are opened and
/// measured with `fstat` when the reader is made, so `contentLength` is exact for that send and
/// an unreadable file fails before anything is sent. The reader then yields exactly
/// `contentLength` bytes: a file that turns out shorter throws `BodyReadError.shrank`; bytes
/// appended to a file meanwhile are not sent (as curl does).
///
/// Synchronous, for an event loop (one `pread` per chunk, the same model as curl; regular files
/// only, so a read never waits on a pipe) or a task. Copies share their descriptors (`pread`
/// keeps no file offset, so two copies read independently); descriptors close when the last
/// copy is released or on `close()`.
public struct BodyReader: Sendable {
    /// 256 KiB: large enough for throughput, small enough for flat memory.
    public static let defaultChunkSize = 256 * 1024
    /// The largest chunk `next(maxBytes:)` returns (16 MiB); larger requests are clamped.
    public static let maxChunkSize = 16 * 1024 * 1024

    /// The exact number of bytes this send yields (for `Content-Length`).
    public let contentLength: Int64
    /// The chunk size `next()` uses without an explicit `maxBytes` (clamped to 1...maxChunkSize).
    public let chunkSize: Int
    /// Bytes handed out so far (for `didSendBodyData`'s `totalBytesSent`).
    public private(set) var bytesRead: Int64 = 0

    private var pieces: [Piece]
    private var index = 0
    private var offset: Int64 = 0

    private enum Piece: Sendable {
        case bytes([UInt8])
        case file(OpenFile, length: Int64)

        var length: Int64 {
            switch self {
            case .bytes(let bytes): Int64(bytes.count)
            case .file(_, let length): length
            }
        }
    }

    /// True when every byte has been read.
    public var isAtEnd: Bool { index >= pieces.count || bytesRead >= contentLength }

    /// A reader over bytes in memory.
    public init(bytes: [UInt8], chunkSize: Int = defaultChunkSize) {
        self.init(pieces: [.bytes(bytes)], chunkSize: chunkSize)
    }

    /// Opens `filePath` (read-only, close-on-exec, non-blocking so a FIFO cannot stall the
    /// caller) and measures it. Throws `.open` when it
    /// cannot be opened, `.notRegularFile` for a directory, pipe or device.
    public init(filePath: String, chunkSize: Int = defaultChunkSize) throws(BodyReadError) {
        let file = try OpenFile(path: filePath)
        self.init(pieces: [.file(file, length: file.length)], chunkSize: chunkSize)
    }

    /// Opens every file of `form` (one descriptor per file part, held until the reader is
    /// released) and lays out its segments.
    public init(multipart form: MultipartFormData, chunkSize: Int = defaultChunkSize) throws(BodyReadError) {
        var pieces: [Piece] = []
        for segment in form.segments {
            switch segment {
            case .bytes(let bytes): pieces.append(.bytes(bytes))
            case .file(let path):
                let file = try OpenFile(path: path)
                pieces.append(.file(file, length: file.length))
            }
        }
        self.init(pieces: pieces, chunkSize: chunkSize)
    }

    private init(pieces: [Piece], chunkSize: Int) {
        self.pieces = pieces
        self.chunkSize = min(max(1, chunkSize), Self.maxChunkSize)
        // Saturating: a sum beyond Int64 is impossible for real files but must not trap.
        self.contentLength = pieces.reduce(Int64(0)) { total, piece in
            let (sum, overflow) = total.addingReportingOverflow(piece.length)
            return overflow ? Int64.max : sum
        }
    }

    /// Fills `buffer` with the next bytes, crossing from part to part, and returns how many were
    /// written: fewer than `buffer.count` only at the end, 0 once everything was read. Lets the
    /// engine read straight into a `ByteBuffer` (`writeWithUnsafeMutableBytes`), copy-free.
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(BodyReadError) -> Int {
        var written = 0
        while written < buffer.count && index < pieces.count {
            let piece = pieces[index]
            let room = buffer.count - written
            switch piece {
            case .bytes(let bytes):
                let count = min(bytes.count - Int(offset), room)
                if count > 0, let base = buffer.baseAddress {
                    bytes.withUnsafeBytes { source in
                        if let from = source.baseAddress {
                            (base + written).copyMemory(from: from + Int(offset), byteCount: count)
                        }
                    }
                }
                written += count
                offset += Int64(count)
            case .file(let file, let length):
                let want = Int(min(length - offset, Int64(room)))
                if want > 0, let base = buffer.baseAddress {
                    let got = try file.read(into: base + written, count: want, at: offset)
                    guard got > 0 else { throw BodyReadError(.shrank, path: file.path, expected: length, actual: offset) }
                    written += got
                    offset += Int64(got)
                }
            }
            if offset >= piece.length {
                index += 1
                offset = 0
            }
        }
        bytesRead += Int64(written)
        return written
    }

    /// The next chunk of at most `maxBytes` (default `chunkSize`; clamped to
    /// 1...`maxChunkSize`), or nil at the end. Never returns an empty chunk.
    public mutating func next(maxBytes: Int? = nil) throws(BodyReadError) -> [UInt8]? {
        let remaining = contentLength - bytesRead
        guard remaining > 0, index < pieces.count else { return nil }
        let size = Int(min(Int64(min(max(1, maxBytes ?? chunkSize), Self.maxChunkSize)), remaining))
        var failure: BodyReadError?
        let chunk = [UInt8](unsafeUninitializedCapacity: size) { storage, count in
            do throws(BodyReadError) {
                count = try read(into: UnsafeMutableRawBufferPointer(storage))
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return chunk.isEmpty ? nil : chunk
    }

    /// Releases this reader's descriptors (they close when no copy holds them). Reading
    /// afterwards returns nothing.
    public mutating func close() {
        pieces = []
        index = 0
        offset = 0
    }
}

/// An open regular file, closed when released.
private final class OpenFile: Sendable {
    let path: String
    let descriptor: Int32
    let length: Int64

    init(path: String) throws(BodyReadError) {
        guard !path.containsByte(0) else { throw BodyReadError(.open, path: path, errno: EINVAL) }
        var fd: Int32
        // O_NONBLOCK: opening a FIFO without a writer must not block (it is refused below).
        repeat { fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw BodyReadError(.open, path: path, errno: errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw BodyReadError(.open, path: path, errno: code)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw BodyReadError(.notRegularFile, path: path)
        }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        self.path = path
        self.descriptor = fd
        self.length = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    /// One `pread`, retried on EINTR; 0 at the end of the file.
    func read(into pointer: UnsafeMutableRawPointer, count: Int, at offset: Int64) throws(BodyReadError) -> Int {
        while true {
            let got = pread(descriptor, pointer, count, off_t(offset))
            if got >= 0 { return got }
            if errno != EINTR { throw BodyReadError(.read, path: path, errno: errno) }
        }
    }
}

/// Why a body could not be read. A struct so that new failures can be added without breaking
/// callers (AsyncHTTPClient's `HTTPClientError` pattern). Every case is a local file problem:
/// the command maps it to exit status 3.
public struct BodyReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed.
    public struct Code: Sendable, Hashable {
        private enum Kind: Sendable, Hashable { case open, notRegularFile, read, shrank }
        private let kind: Kind
        /// The file could not be opened or measured (`errno` says why).
        public static let open = Code(kind: .open)
        /// The path is a directory, pipe or device: it has no length and cannot be reopened.
        public static let notRegularFile = Code(kind: .notRegularFile)
        /// `pread` failed (`errno` says why).
        public static let read = Code(kind: .read)
        /// The file ended before the length measured when it was opened.
        public static let shrank = Code(kind: .shrank)

        fileprivate func message(_ error: BodyReadError) -> String {
            let reason = error.errno == 0 ? "" : String(cString: strerror(error.errno))
            return switch kind {
            case .open: "cannot open '\(error.path)': \(reason)"
            case .notRegularFile: "cannot upload '\(error.path)': not a regular file"
            case .read: "cannot read '\(error.path)': \(reason)"
            case .shrank: "'\(error.path)' shrank while being sent (\(error.expected ?? 0) bytes expected, it ended at \(error.actual ?? 0))"
            }
        }
    }

    /// What failed.
    public let code: Code
    /// The file concerned.
    public let path: String
    /// The system error code, or 0.
    public let errno: Int32
    /// For `.shrank`: the length measured at open.
    public let expected: Int64?
    /// For `.shrank`: where the file ended.
    public let actual: Int64?

    /// An error for `code` on `path`.
    public init(_ code: Code, path: String, errno: Int32 = 0, expected: Int64? = nil, actual: Int64? = nil) {
        self.code = code
        self.path = path
        self.errno = errno
        self.expected = expected
        self.actual = actual
    }

    /// One line naming the file and the cause, for the command's error message.
    public var description: String { code.message(self) }
}
