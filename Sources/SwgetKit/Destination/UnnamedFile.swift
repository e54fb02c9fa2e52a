#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The destination of a body that arrived whole with its response head (a small file): an
/// unnamed file in the destination directory (`O_TMPFILE`), linked under its final name once
/// every byte is in it. The bytes are already in memory, so there is nothing a crash could lose
/// that a `NAME.part` and its resume state would keep: no part, no state file, and a process
/// killed before the link leaves nothing behind. One inode and about half the system calls of a
/// part file, which is what a batch of small files costs. (A body still on its way always gets
/// a part file, however small: it can be interrupted and continued.)
///
/// Naming follows ``DestinationFile``'s rules: with `.unique` a name whose `NAME` or
/// `NAME.part` exists is passed over for the next ``UniqueName`` candidate (a taken `NAME` is
/// found by the link itself, EEXIST); with `.noClobber` a taken name fails the link with EEXIST.
/// `.overwrite` destinations keep the part file (they replace a name, which a link cannot).
final class UnnamedFile: Sendable {
    /// The unnamed file, open for writing; owned by this value.
    let fileDescriptor: Int32
    /// The first candidate: where the file is linked unless that name is taken by then.
    let finalPath: String
    private let directory: String
    private let baseName: String
    private let attempt: Int
    private let policy: DestinationFile.Policy
    private let isOpen = Mutex(true)

    /// Linux's O_TMPFILE (`__O_TMPFILE | O_DIRECTORY`), which Swift's Glibc module does not export.
    private static let openTemporary: Int32 = 0o20000000 | O_DIRECTORY

    private init(fileDescriptor: Int32, finalPath: String, directory: String, baseName: String, attempt: Int,
                 policy: DestinationFile.Policy) {
        self.fileDescriptor = fileDescriptor
        self.finalPath = finalPath
        self.directory = directory
        self.baseName = baseName
        self.attempt = attempt
        self.policy = policy
    }

    deinit {
        if isOpen.withLock({ $0 }) { close(fileDescriptor) }
    }

    /// What ``create(directory:name:policy:)`` found.
    enum Reservation {
        case file(UnnamedFile)
        /// `.noClobber` and the name exists: nothing to download.
        case skipped(String)
        /// The file system (or the policy) has no unnamed files: use a part file.
        case unsupported
    }

    /// Opens an unnamed file in `directory` (created when missing) for `name`. `knownParts`,
    /// the session's reading of the directory, spares the lookup of `NAME.part` when it knows
    /// there is none.
    static func create(directory: String, name: String, policy: DestinationFile.Policy,
                       knownParts: ResumeStateIndex? = nil) throws(DestinationError) -> Reservation {
        guard policy != .overwrite, linkThroughProc else { return .unsupported }
        let (dir, base) = try DestinationFile.split(directory: directory, name: name)
        let seed = FilenameSanitizer.truncated(base, maxBytes: DestinationFile.maxBaseBytes)
        let attempt: Int
        let finalPath: String
        if policy == .noClobber {
            // Only NAME counts (a part file left beside it would be taken over by a part file too).
            finalPath = DownloadPaths.join(dir, base)
            if DestinationFile.exists(finalPath) { return .skipped(finalPath) }
            attempt = 0
        } else {
            guard let free = try firstFreeName(dir, seed, from: 0, knownParts: knownParts) else {
                throw DestinationError(.create, path: DownloadPaths.join(dir, seed), errno: EEXIST)
            }
            (attempt, finalPath) = free
        }
        var fd = openUnnamed(in: dir)
        if fd < 0 && !isUnsupported(errno) {
            // Most likely the directory is missing; it is checked only now because a batch
            // writes thousands of files into one that exists. Making it says what is wrong
            // with it, if anything; then open again.
            try DestinationFile.makeDirectories(dir)
            fd = openUnnamed(in: dir)
        }
        guard fd >= 0 else {
            let code = errno
            if isUnsupported(code) { return .unsupported }
            throw DestinationError(.create, path: finalPath, errno: code)
        }
        return .file(UnnamedFile(fileDescriptor: fd, finalPath: finalPath, directory: dir, baseName: seed,
                                 attempt: attempt, policy: policy))
    }

    /// Not every file system has O_TMPFILE (EOPNOTSUPP; EISDIR or EINVAL from old kernels).
    private static func isUnsupported(_ code: Int32) -> Bool {
        code == EOPNOTSUPP || code == EISDIR || code == EINVAL
    }

    private static func openUnnamed(in directory: String) -> Int32 {
        (directory.isEmpty ? "." : directory).withCString { open($0, openTemporary | O_WRONLY | O_CLOEXEC, 0o644) }
    }

    /// Links the file under its name (the next free candidate if `.unique` finds it taken) and
    /// closes it; returns the path published.
    func publish() throws(DestinationError) -> String {
        guard isOpen.withLock({ let was = $0; $0 = false; return was }) else {
            throw DestinationError(.publish, path: finalPath, errno: EBADF)
        }
        defer { close(fileDescriptor) }
        var target = finalPath
        var attempt = self.attempt
        while true {
            let code = link(as: target)
            if code == 0 { return target }
            guard code == EEXIST, policy == .unique,
                  let (next, path) = try Self.firstFreeName(directory, baseName, from: attempt + 1) else {
                throw DestinationError(.publish, path: finalPath, target: target, errno: code)
            }
            attempt = next
            target = path
        }
    }

    /// Closes the file; its bytes go with it.
    func abandon() {
        if isOpen.withLock({ let was = $0; $0 = false; return was }) { close(fileDescriptor) }
    }

    /// Links the file as `target`: 0, or the errno. `linkat` with AT_EMPTY_PATH names the
    /// file by its descriptor; Linux allows that since 6.10 to the process that opened it
    /// (before, only with CAP_DAC_READ_SEARCH), and answers ENOENT otherwise. The same link
    /// through /proc/self/fd works everywhere /proc is mounted but walks three more path
    /// components and a magic link, about a quarter of a small file's kernel time. The first
    /// refusal turns the descriptor link off for the process.
    private func link(as target: String) -> Int32 {
        if Self.linkByDescriptor.load(ordering: .relaxed) {
            if target.withCString({ linkat(fileDescriptor, "", AT_FDCWD, $0, Self.emptyPath) }) == 0 { return 0 }
            let code = errno
            guard code == ENOENT || code == EPERM else { return code }
        }
        if linkat(AT_FDCWD, "/proc/self/fd/\(fileDescriptor)", AT_FDCWD, target, AT_SYMLINK_FOLLOW) == 0 {
            // The descriptor link was refused but this one worked: refused for good.
            Self.linkByDescriptor.store(false, ordering: .relaxed)
            return 0
        }
        return errno
    }

    /// Linux's AT_EMPTY_PATH, which Swift's Glibc module does not export.
    private static let emptyPath: Int32 = 0x1000

    /// Whether `linkat` with AT_EMPTY_PATH is tried first (see ``link(as:)``). Tests turn it
    /// off to cover the /proc path on a kernel that allows both.
    static let linkByDescriptor = Atomic(true)

    /// The first candidate from `attempt` on whose `NAME.part` is free. Its `NAME` is not
    /// looked up: the link fails with EEXIST when `NAME` is taken, and ``publish()`` goes on
    /// from the next candidate. (One path lookup per file fewer; the name is announced only
    /// once linked, so a guess that turns out taken is never shown.) `NAME.part` is not looked
    /// up either when `knownParts` knows it is absent.
    private static func firstFreeName(_ directory: String, _ seed: String, from attempt: Int,
                                      knownParts: ResumeStateIndex? = nil) throws(DestinationError) -> (Int, String)? {
        for attempt in attempt..<DestinationFile.maxAttempts {
            let name = UniqueName.candidate(seed, attempt: attempt, maxBytes: DestinationFile.maxBaseBytes)
            guard let paths = DownloadPaths(directory: directory, name: name) else {
                throw DestinationError(.create, path: DownloadPaths.join(directory, name), errno: EINVAL)
            }
            if knownParts?.knowsAbsent(partName: paths.partName, in: directory) == true
                || !DestinationFile.exists(paths.partPath) {
                return (attempt, paths.finalPath)
            }
        }
        return nil
    }

    /// Linking an unnamed file by name needs /proc (`linkat` with AT_EMPTY_PATH needs a
    /// capability most users lack).
    private static let linkThroughProc: Bool = access("/proc/self/fd", F_OK) == 0
}
