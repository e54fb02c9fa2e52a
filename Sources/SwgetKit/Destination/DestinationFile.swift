#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Where a download's bytes go: `<dir>/<name>.part` created exclusively (O_CREAT|O_EXCL, mode 0644), published by
/// an atomic rename, so that a file under its final name is always complete.
///
/// The part file is also locked (`flock`, exclusive) while open, so a second process cannot resume, truncate or
/// overwrite a part file that a running download is writing. Call `publish()` or `abandon()` once; a
/// `DestinationFile` released without either closes its descriptor and keeps the part file.
public final class DestinationFile: Sendable {
    /// What to do when the name is taken.
    public enum Policy: Sendable, Equatable {
        /// Never overwrite: use the next free `UniqueName` candidate.
        case unique
        /// Skip the download when NAME exists; never replace a NAME that appears meanwhile.
        case noClobber
        /// Replace NAME (`-O` semantics).
        case overwrite
    }

    /// The published path: `directory + "/" + name` (just `name` when the directory is "").
    public let finalPath: String
    /// The part file the bytes are written to, normally `finalPath + ".part"`.
    public let partPath: String
    /// The part file, open with O_WRONLY|O_CLOEXEC; owned by this value (closed by `publish()` / `abandon()`).
    public let fileDescriptor: Int32
    /// The policy this destination was reserved with; `publish()` follows it.
    public let policy: Policy
    /// Bytes already in the part file when it was opened: 0 after `reserve`, the current length after `resume`.
    public let existingLength: Int64

    private let directory: String
    private let baseName: String
    private let attempt: Int
    private let isOpen = Mutex(true)

    /// Part-file names are kept short enough that NAME.part and NAME.swget can always be created.
    static let maxBaseBytes = DownloadPaths.maxBaseBytes
    /// How many `UniqueName` candidates are tried before giving up.
    static let maxAttempts = 100_000

    private init(directory: String, baseName: String, attempt: Int, finalPath: String, partPath: String,
                 fileDescriptor: Int32, policy: Policy, existingLength: Int64) {
        self.directory = directory
        self.baseName = baseName
        self.attempt = attempt
        self.finalPath = finalPath
        self.partPath = partPath
        self.fileDescriptor = fileDescriptor
        self.policy = policy
        self.existingLength = existingLength
    }

    deinit {
        if isOpen.withLock({ $0 }) { close(fileDescriptor) }
    }

    /// Reserves a name in `directory` (created with intermediate directories if missing; "" is the current
    /// directory). `name` may contain "/" (as `-O sub/file` does); its last component is the file name.
    /// With `.unique`, tries `UniqueName` candidates until NAME does not exist and NAME.part can be created
    /// exclusively, so two downloads, even in two processes, never pick the same name. With `.noClobber` returns
    /// nil when NAME exists. With `.noClobber` and `.overwrite`, an existing NAME.part not in use is truncated.
    public static func reserve(directory: String, name: String, policy: Policy) throws(DestinationError) -> DestinationFile? {
        let (dir, base) = try split(directory: directory, name: name)
        try makeDirectories(dir)
        guard policy == .unique else {
            let finalPath = DownloadPaths.join(dir, base)
            if policy == .noClobber && exists(finalPath) { return nil }
            let partPath = try paths(dir, base).partPath
            let fd = try openLocked(partPath, flags: O_CREAT)
            guard ftruncate(fd, 0) == 0 else {
                let error = DestinationError(.create, path: partPath, errno: errno)
                close(fd)
                throw error
            }
            return DestinationFile(directory: dir, baseName: base, attempt: 0, finalPath: finalPath, partPath: partPath,
                                   fileDescriptor: fd, policy: policy, existingLength: 0)
        }
        let seed = FilenameSanitizer.truncated(base, maxBytes: maxBaseBytes)
        for attempt in 0..<maxAttempts {
            let candidate = try paths(dir, UniqueName.candidate(seed, attempt: attempt, maxBytes: maxBaseBytes))
            let finalPath = candidate.finalPath
            if exists(finalPath) { continue }
            let partPath = candidate.partPath
            let fd = open(partPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd < 0 {
                if errno == EEXIST { continue }
                throw DestinationError(.create, path: partPath, errno: errno)
            }
            _ = flock(fd, LOCK_EX | LOCK_NB)  // a fresh file: nobody else holds it
            return DestinationFile(directory: dir, baseName: seed, attempt: attempt, finalPath: finalPath,
                                   partPath: partPath, fileDescriptor: fd, policy: policy, existingLength: 0)
        }
        throw DestinationError(.create, path: DownloadPaths.join(dir, seed) + ".part", errno: EEXIST)
    }

    /// Opens the existing `<directory>/<name>.part` to continue it (no truncation; `existingLength` is its size).
    /// Returns nil when there is no such part file; throws when another process is writing it.
    public static func resume(directory: String, name: String, policy: Policy = .unique) throws(DestinationError) -> DestinationFile? {
        let (dir, base) = try split(directory: directory, name: name)
        let finalPath = DownloadPaths.join(dir, base)
        let partPath = try paths(dir, base).partPath
        guard exists(partPath) else { return nil }
        let fd = try openLocked(partPath, flags: 0)
        let length = lseek(fd, 0, SEEK_END)
        guard length >= 0 else {
            let error = DestinationError(.create, path: partPath, errno: errno)
            close(fd)
            throw error
        }
        return DestinationFile(directory: dir, baseName: base, attempt: 0, finalPath: finalPath, partPath: partPath,
                               fileDescriptor: fd, policy: policy, existingLength: Int64(length))
    }

    /// Closes the descriptor and renames the part file to its final name atomically; returns the path published.
    /// `.overwrite` replaces NAME. `.unique` never replaces a file that appeared under the final name meanwhile
    /// (RENAME_NOREPLACE): it takes the next free candidate. `.noClobber` then fails with EEXIST, keeping the part.
    /// Does not fsync.
    public func publish() throws(DestinationError) -> String {
        guard isOpen.withLock({ let was = $0; $0 = false; return was }) else {
            throw DestinationError(.publish, path: partPath, target: finalPath, errno: EBADF)
        }
        if close(fileDescriptor) != 0 && errno != EINTR {
            throw DestinationError(.write, path: partPath, errno: errno)
        }
        if policy == .overwrite {
            guard rename(partPath, finalPath) == 0 else {
                throw DestinationError(.publish, path: partPath, target: finalPath, errno: errno)
            }
            return finalPath
        }
        var target = finalPath
        var attempt = self.attempt
        while true {
            let result = Self.renameNoReplace(partPath, target)
            if result == 0 { return target }
            guard result == EEXIST, policy == .unique, attempt < Self.maxAttempts else {
                throw DestinationError(.publish, path: partPath, target: target, errno: result)
            }
            repeat {
                attempt += 1
                target = DownloadPaths.join(directory, UniqueName.candidate(baseName, attempt: attempt, maxBytes: Self.maxBaseBytes))
            } while attempt < Self.maxAttempts && (Self.exists(target) || Self.exists(target + ".part"))
        }
    }

    /// The layout of this destination's files (final, part and state paths).
    var paths: DownloadPaths? { DownloadPaths(finalPath: finalPath) }

    /// Closes the descriptor and keeps the part file (failure path: a later resume continues it).
    public func abandon() {
        if isOpen.withLock({ let was = $0; $0 = false; return was }) { close(fileDescriptor) }
    }
}

extension DestinationFile {
    /// The file layout of `name` in `directory`; EINVAL when the name is not one component.
    private static func paths(_ directory: String, _ name: String) throws(DestinationError) -> DownloadPaths {
        guard let paths = DownloadPaths(directory: directory, name: name) else {
            throw DestinationError(.create, path: DownloadPaths.join(directory, name), errno: EINVAL)
        }
        return paths
    }

    /// Joins directory and name into (directory of the file, file name); throws EINVAL when no file name remains.
    static func split(directory: String, name: String) throws(DestinationError) -> (String, String) {
        let path = DownloadPaths.join(directory, name)
        let (parent, base) = DownloadPaths.cut(path)
        guard !base.isEmpty, base != ".", base != ".." else { throw DestinationError(.create, path: path, errno: EINVAL) }
        return (parent, base)
    }

    /// True when something (file, directory, even a dangling symlink) has this name. The path
    /// goes to the kernel through `withCString`: passing a `String` to a C `char *` makes a
    /// NUL-terminated copy on the heap every time, and this runs once per file.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return path.withCString { lstat($0, &info) } == 0
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// `mkdir -p`, mode 0755 (before umask).
    static func makeDirectories(_ directory: String) throws(DestinationError) {
        if directory.isEmpty || isDirectory(directory) { return }
        var prefix = directory.hasPrefix("/") ? "/" : ""
        for component in directory.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o755) != 0 {
                let code = errno
                guard code == EEXIST else { throw DestinationError(.createDirectory, path: prefix, errno: code) }
                guard isDirectory(prefix) else { throw DestinationError(.createDirectory, path: prefix, errno: ENOTDIR) }
            }
            prefix += "/"
        }
    }

    /// Opens `path` for writing without following a symlink and takes its exclusive lock.
    private static func openLocked(_ path: String, flags: Int32) throws(DestinationError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | flags, 0o644)
        guard fd >= 0 else { throw DestinationError(.create, path: path, errno: errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            throw DestinationError(code == EWOULDBLOCK ? .lock : .create, path: path, errno: code)
        }
        return fd
    }

    private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32
    /// glibc ≥ 2.28 has renameat2, but Swift's Glibc module does not export it (it needs _GNU_SOURCE).
    private static let renameAt2: RenameAt2? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: RenameAt2.self)
    }()
    private static let renameNoReplaceFlag: UInt32 = 1  // RENAME_NOREPLACE

    /// Renames without ever replacing `to`; returns 0 or an errno (EEXIST when `to` exists).
    /// renameat2(RENAME_NOREPLACE), else link()+unlink(); on a file system with neither (no hard links), a
    /// check-then-rename that is only racy there.
    /// `useRenameAt2: false` exercises the fallback (for tests).
    static func renameNoReplace(_ from: String, _ to: String, useRenameAt2: Bool = true) -> Int32 {
        if useRenameAt2, let renameAt2 {
            if renameAt2(AT_FDCWD, from, AT_FDCWD, to, renameNoReplaceFlag) == 0 { return 0 }
            let code = errno
            guard code == EINVAL || code == ENOSYS || code == EOPNOTSUPP else { return code }
        }
        if link(from, to) == 0 {
            _ = unlink(from)
            return 0
        }
        let code = errno
        guard code == EPERM || code == EOPNOTSUPP || code == ENOSYS || code == EMLINK else { return code }
        if exists(to) { return EEXIST }
        return rename(from, to) == 0 ? 0 : errno
    }
}

/// A file-system failure while reserving or publishing a destination; `description` is one clear line.
public struct DestinationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The step that failed.
    public struct Operation: Sendable, Hashable {
        private enum Kind: Sendable, Hashable { case createDirectory, create, lock, write, publish }
        private let kind: Kind
        /// Creating the destination directory (or one of its parents).
        public static let createDirectory = Operation(kind: .createDirectory)
        /// Creating or opening the part file.
        public static let create = Operation(kind: .create)
        /// Another download holds the part file's lock.
        public static let lock = Operation(kind: .lock)
        /// Closing the part file reported a write error.
        public static let write = Operation(kind: .write)
        /// Renaming the part file to its final name.
        public static let publish = Operation(kind: .publish)

        fileprivate func message(path: String, target: String?, reason: String) -> String {
            switch kind {
            case .createDirectory: "cannot create directory '\(path)': \(reason)"
            case .create: "cannot create '\(path)': \(reason)"
            case .lock: "cannot use '\(path)': another download is writing it"
            case .write: "cannot write '\(path)': \(reason)"
            case .publish: "cannot rename '\(path)' to '\(target ?? "")': \(reason)"
            }
        }
    }

    /// The step that failed.
    public let operation: Operation
    /// The path the failing call was made on.
    public let path: String
    /// For `.publish`, the final name the part file was being renamed to.
    public let target: String?
    /// The system error code.
    public let errno: Int32

    /// Creates an error for `operation` on `path`.
    public init(_ operation: Operation, path: String, target: String? = nil, errno: Int32) {
        self.operation = operation
        self.path = path
        self.target = target
        self.errno = errno
    }

    /// One line, e.g. "cannot create 'x/y.part': Permission denied".
    public var description: String {
        operation.message(path: path, target: target, reason: String(cString: strerror(errno)))
    }
}
