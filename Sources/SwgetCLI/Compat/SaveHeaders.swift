import SwgetKit
#if canImport(Glibc)
import Glibc
#endif

/// wget's `-s` / `--save-headers`: the response head, then an empty line, before the body in
/// the saved file. The library writes (and resumes) bodies only; once a file is complete under
/// its final name, the head is put in front of it through a temporary file renamed over it, so
/// that a file under its final name is always complete, with its head or without.
enum SaveHeaders {
    /// The head as wget writes it: status line and fields, each ending in CRLF, then CRLF.
    static func block(_ response: Response) -> [UInt8] {
        var text = "\(response.httpVersion) \(response.statusCode) \(response.reasonPhrase)\r\n"
        for field in response.headers { text += "\(field.name): \(field.value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// A failure to rewrite the file (the file is left as the download made it).
    struct Failure: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot save the headers in '\(Terminal.relativePath(path))': \(reason)" }
    }

    /// Puts `block` before the content of the file at `path`: writes both to `PATH.swget-headers`
    /// (created exclusively, with the file's mode and times), then renames it over `path`.
    static func prepend(_ block: [UInt8], to path: String) throws(Failure) {
        func failure(_ what: String) -> Failure { Failure(path: path, reason: "\(what): \(String(cString: strerror(errno)))") }
        let source = open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw failure("open") }
        defer { close(source) }
        var info = stat()
        guard fstat(source, &info) == 0 else { throw failure("stat") }
        let temporary = path + ".swget-headers"
        let target = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, info.st_mode & 0o7777)
        guard target >= 0 else { throw failure("create") }
        var renamed = false
        defer {
            close(target)
            if !renamed { unlink(temporary) }
        }
        guard writeAll(target, block) else { throw failure("write") }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw failure("read") }
            if n == 0 { break }
            guard writeAll(target, buffer[..<n]) else { throw failure("write") }
        }
        // Keep the times the download gave the file (the server's Last-Modified, when used).
        var times = [info.st_atim, info.st_mtim]
        _ = futimens(target, &times)
        guard fsync(target) == 0 else { throw failure("sync") }
        guard rename(temporary, path) == 0 else { throw failure("rename") }
        renamed = true
    }

    /// Writes every byte of `bytes` to `fd`; false on an error.
    static func writeAll(_ fd: Int32, _ bytes: some Collection<UInt8>) -> Bool {
        Array(bytes).withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, base + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
    }
}
