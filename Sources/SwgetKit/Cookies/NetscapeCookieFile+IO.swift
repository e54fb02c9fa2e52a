#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A cookie file could not be read or written.
public struct CookieFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The step that failed.
    public enum Operation: Hashable, Sendable {
        /// Opening or reading the file.
        case read
        /// The file is larger than the limit given to `load`.
        case tooLarge
        /// Creating, writing or syncing the temporary file.
        case write
        /// Renaming the temporary file over the destination.
        case rename
    }

    /// The step that failed.
    public let operation: Operation
    /// The path the failing call was made on.
    public let path: String
    /// The system error code (0 for `.tooLarge`).
    public let errno: Int32

    /// An error for `operation` on `path`.
    public init(_ operation: Operation, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// One line naming the file and the cause.
    public var description: String {
        let reason = String(cString: strerror(errno))
        return switch operation {
        case .read: "cannot read cookie file '\(path)': \(reason)"
        case .tooLarge: "cookie file '\(path)' is too large"
        case .write: "cannot write cookie file '\(path)': \(reason)"
        case .rename: "cannot replace cookie file '\(path)': \(reason)"
        }
    }
}

extension NetscapeCookieFile {
    /// The largest file `load` reads by default (64 MiB: far more than the store can hold).
    public static let maxFileBytes = 64 << 20

    /// Reads and parses the cookie file at `path` (see `parse`). Bytes that are not UTF-8 become U+FFFD.
    /// Throws when the file cannot be read or holds more than `maxBytes` bytes.
    public static func load(path: String, now: Date, maxBytes: Int = maxFileBytes) throws(CookieFileError) -> Contents {
        let bytes = try readFile(path, maxBytes: maxBytes)
        return parse(String(decoding: bytes, as: UTF8.self), now: now)
    }

    /// Writes `cookies` to `path` in the Netscape format (`serialize`) with `writeAtomically`.
    public static func save(_ cookies: [Cookie], to path: String, includeSessionCookies: Bool,
                            now: Date) throws(CookieFileError) {
        let text = serialize(cookies, includeSessionCookies: includeSessionCookies, now: now)
        try writeAtomically(Array(text.utf8), to: path)
    }

    /// Replaces the file at `path` with `bytes` so that a reader sees either the old file or the whole new
    /// one, even after a crash: a temporary file in the same directory (created exclusively, mode 0600,
    /// not following symlinks), written in full, fsynced, then renamed over `path`, and the directory synced
    /// (best effort). The result has mode 0600 whatever the umask: cookie files hold credentials. On failure
    /// the temporary file is removed and `path` is untouched.
    public static func writeAtomically(_ bytes: [UInt8], to path: String) throws(CookieFileError) {
        guard !path.isEmpty, !path.hasSuffix("/") else { throw CookieFileError(.write, path: path, errno: EISDIR) }
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        let temporary = "\(directory)/.swget-cookies-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw CookieFileError(.write, path: temporary, errno: errno) }
        var failure: CookieFileError?
        if fchmod(fd, 0o600) != 0 || !writeAll(fd, bytes) || fsync(fd) != 0 {
            failure = CookieFileError(.write, path: temporary, errno: errno)
        }
        if close(fd) != 0, failure == nil { failure = CookieFileError(.write, path: temporary, errno: errno) }
        if failure == nil, rename(temporary, path) != 0 { failure = CookieFileError(.rename, path: path, errno: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
        let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            _ = fsync(dirFD)
            close(dirFD)
        }
    }

    /// Writes every byte, retrying short writes and EINTR.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                guard let base = buffer.baseAddress else { return false }
                let written = write(fd, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    /// The file's bytes, at most `maxBytes` of them (throws `.tooLarge` beyond).
    private static func readFile(_ path: String, maxBytes: Int) throws(CookieFileError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CookieFileError(.read, path: path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw CookieFileError(.read, path: path, errno: errno) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw CookieFileError(.read, path: path, errno: EISDIR) }
        if info.st_size > maxBytes { throw CookieFileError(.tooLarge, path: path, errno: 0) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CookieFileError(.read, path: path, errno: errno)
            }
            if count == 0 { return bytes }
            guard bytes.count + count <= maxBytes else { throw CookieFileError(.tooLarge, path: path, errno: 0) }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}
