#if canImport(Glibc)
import Glibc
#endif

/// The process's standard error as a place for messages and progress lines.
enum Terminal {
    /// True when stderr is a terminal (progress bars are drawn only then).
    static var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }

    /// True when the locale's character set is UTF-8 (LC_ALL, else LC_CTYPE, else LANG, as
    /// setlocale resolves them); otherwise only ASCII is printed.
    static var localeIsUTF8: Bool {
        let value = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { name -> String? in
            guard let raw = getenv(name) else { return nil }
            let text = String(cString: raw)
            return text.isEmpty ? nil : text
        }.first ?? "C"
        let lower = value.lowercased()
        return lower.contains("utf-8") || lower.contains("utf8")
    }

    /// The width of the terminal on stderr, or 80.
    static var width: Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// Writes `text` to stderr in one `write(2)` (lines from one call never interleave).
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            guard let base = buffer.baseAddress else { return }
            while offset < buffer.count {
                let n = Glibc.write(STDERR_FILENO, base + offset, buffer.count - offset)
                if n <= 0 {
                    if n < 0 && errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
    }

    /// The working directory, read once.
    static let workingDirectory: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// `path` as people gave it: relative to the working directory when it lies inside it
    /// (the library reports absolute paths).
    static func relativePath(_ path: String) -> String {
        let cwd = workingDirectory
        guard !cwd.isEmpty, path.hasPrefix(cwd + "/") else { return path }
        return String(path.dropFirst(cwd.count + 1))
    }

    /// Monotonic seconds.
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
