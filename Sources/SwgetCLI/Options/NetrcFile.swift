import SwgetKit
#if canImport(Glibc)
import Glibc
#endif

/// Finding and reading the user's `.netrc` (the lookup wget and curl do): `--netrc-file FILE`,
/// else `$HOME/.netrc` (the password database's home when HOME is unset); nothing with
/// `--no-netrc`. A missing default file is silently skipped; a missing named file, a file that
/// does not parse, or one readable by others gets a warning on stderr (the file holds
/// passwords). Shared by FTP logins and, later, HTTP authentication.
enum NetrcFile {
    /// The parsed file, or nil (disabled, missing, unreadable, malformed).
    static func load(path explicit: String?, disabled: Bool) -> Netrc? {
        guard !disabled, let path = explicit ?? defaultPath() else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if explicit != nil { warn("cannot read the netrc file '\(path)': \(String(cString: strerror(errno)))") }
            return nil
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            warn("'\(path)' is not a regular file; not read")
            return nil
        }
        guard info.st_size <= Netrc.maximumBytes else {
            warn("the netrc file '\(path)' is larger than \(Netrc.maximumBytes) bytes; not read")
            return nil
        }
        if Netrc.isExposed(mode: UInt32(info.st_mode)) {
            warn("the netrc file '\(path)' can be read by others (chmod 600 it)")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count <= Netrc.maximumBytes {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[..<n]
        }
        do {
            let netrc = try Netrc(parsing: String(decoding: bytes, as: UTF8.self))
            for warning in netrc.warnings { warn("\(path): \(warning)") }
            return netrc
        } catch {
            warn("\(path): \(error); not used")
            return nil
        }
    }

    /// `$HOME/.netrc`, or the password database's home directory's.
    static func defaultPath() -> String? {
        if let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty { return home + "/.netrc" }
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        return String(cString: directory) + "/.netrc"
    }

    private static func warn(_ text: String) {
        Terminal.write("swget: warning: \(DisplayText.sanitize(text))\n")
    }
}
