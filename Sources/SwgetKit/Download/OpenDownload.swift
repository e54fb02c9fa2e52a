#if canImport(Glibc)
import Glibc
#endif

/// A download's open destination: the file its bytes are written to, and how it becomes the
/// finished file.
enum OpenDownload: Sendable {
    /// A reserved `NAME.part` (created exclusively, locked), published by an atomic rename.
    case part(DestinationFile)
    /// A body that arrived whole with its head, in an unnamed file linked under its final
    /// name when complete (nothing to resume, nothing left behind by a crash).
    case unnamed(UnnamedFile)
    /// A file written where it is: an existing special file (`-O /dev/null`, a FIFO), or the
    /// user's own `NAME` continued in place by `-c` (never renamed, never truncated).
    case inPlace(fd: Int32, path: String, continuesUserFile: Bool)
    /// The process's standard output.
    case standardOutput

    var fileDescriptor: Int32 {
        switch self {
        case .part(let file): file.fileDescriptor
        case .unnamed(let file): file.fileDescriptor
        case .inPlace(let fd, _, _): fd
        case .standardOutput: STDOUT_FILENO
        }
    }

    /// The path shown while the bytes arrive (the part, the file itself, or the name an
    /// unnamed file will be linked under).
    var visiblePath: String {
        switch self {
        case .part(let file): file.partPath
        case .unnamed(let file): file.finalPath
        case .inPlace(_, let path, _): path
        case .standardOutput: "/dev/stdout"
        }
    }

    /// The layout of a part's files; nil for destinations written in place or unnamed.
    var paths: DownloadPaths? {
        if case .part(let file) = self { return file.paths }
        return nil
    }

    /// A file this download created (a part or an unnamed file), not one it writes in place.
    var isNewFile: Bool {
        switch self {
        case .part, .unnamed: true
        case .inPlace, .standardOutput: false
        }
    }

    /// True when the bytes go where they cannot be taken back (standard output).
    var isStandardOutput: Bool {
        if case .standardOutput = self { return true }
        return false
    }

    /// May the file be emptied to start over? Never the user's own file continued by `-c`.
    var canTruncate: Bool {
        switch self {
        case .part, .unnamed: true
        case .inPlace(_, _, let continuesUserFile): !continuesUserFile
        case .standardOutput: false
        }
    }

    /// Truncates the file to `offset` and moves the write position there (standard output and
    /// special files can only continue where they are).
    func position(at offset: Int64) throws(SessionError) {
        switch self {
        case .standardOutput:
            return
        case .inPlace(let fd, let path, let continuesUserFile):
            if continuesUserFile, lseek(fd, off_t(offset), SEEK_SET) < 0 { throw Self.error("cannot seek in", path) }
        case .part, .unnamed:
            let fd = fileDescriptor
            if ftruncate(fd, off_t(offset)) != 0 { throw Self.error("cannot truncate", visiblePath) }
            if lseek(fd, off_t(offset), SEEK_SET) < 0 { throw Self.error("cannot seek in", visiblePath) }
        }
    }

    /// Publishes the complete file; returns the path it is under now.
    func publish() throws(SessionError) -> String {
        switch self {
        case .part(let file):
            return try Self.published(file.publish)
        case .unnamed(let file):
            return try Self.published(file.publish)
        case .inPlace(let fd, let path, _):
            close(fd)
            return path
        case .standardOutput:
            return "/dev/stdout"
        }
    }

    /// Lets go of the file after a failure (the part stays for a resume).
    func abandon() {
        switch self {
        case .part(let file): file.abandon()
        case .unnamed(let file): file.abandon()
        case .inPlace(let fd, _, _): close(fd)
        case .standardOutput: break
        }
    }

    /// The path `publish` returns, its failure as a file error.
    private static func published(_ publish: () throws(DestinationError) -> String) throws(SessionError) -> String {
        do {
            return try publish()
        } catch {
            throw SessionError.fileIO.with(error.description).errno(error.errno)
        }
    }

    private static func error(_ what: String, _ path: String) -> SessionError {
        let code = errno
        return SessionError.fileIO.with("\(what) '\(path)': \(String(cString: strerror(code)))").errno(code)
    }
}
