#if canImport(Glibc)
import Glibc
#endif

/// Small text files the command reads: URL lists, `.netrc`, configuration.
enum TextFile {
    /// The whole text of `path` (standard input for "-"), at most `limit` bytes; nil when it
    /// cannot be read or is larger.
    static func read(_ path: String, limit: Int = 64 << 20) -> String? {
        let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return n == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes += chunk[..<n]
            if bytes.count > limit { return nil }
        }
    }
}
