#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// The on-disk home of background downloads' ``ResumeData``: `NAME.swget` beside `NAME.part`
/// (``DownloadPaths``), replaced atomically (temp file, fsync, rename, fsync of the directory),
/// so a crash leaves either the old state or the new one, never a torn file.
///
/// A state file is input like any other: it may have been planted (a server once could name a
/// download `x.swget`), edited or corrupted. What it says is therefore validated
/// (``ResumeData/validated(partLength:)``), and the paths it records are never used: the state
/// in `NAME.swget` only ever continues `NAME.part` into `NAME`, in the directory where it lies.
enum ResumeStore {
    /// Largest state file read (a real one is a few hundred bytes; segment maps add some).
    static let maxStateBytes = 1 << 20

    /// Writes the state of the download at `paths` atomically. `durable: false` skips the
    /// syncs: for the first state of a new part, which claims no bytes (losing it in a crash
    /// only leaves a part to restart).
    static func save(_ data: ResumeData, at paths: DownloadPaths, durable: Bool = true) throws(SessionError) {
        let directory = paths.directory.isEmpty ? "." : paths.directory
        var template = Array((directory + "/" + temporaryPrefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw ioError("cannot write resume state in '\(directory)'") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        _ = flock(fd, LOCK_EX)  // held until the rename: a scan tells a live writer from a dead one
        let bytes = data.serialized()
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = durable ? fsync(fd) : 0
        close(fd)
        guard written == bytes.count, synced == 0, rename(temporary, paths.statePath) == 0 else {
            let error = ioError("cannot write resume state '\(paths.statePath)'")
            unlink(temporary)
            throw error
        }
        guard durable else { return }
        let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            fsync(dirFD)
            close(dirFD)
        }
    }

    /// The state of the download at `paths`, validated against its part file; nil when there
    /// is none. An invalid state is reported through `invalid` and ignored.
    static func load(at paths: DownloadPaths, invalid: (String) -> Void = { _ in }) -> ResumeData? {
        guard let bytes = readRegularFile(paths.statePath) else { return nil }
        guard let data = ResumeData(serialized: bytes) else {
            invalid("ignoring '\(paths.statePath)': not a resume state swget can read")
            return nil
        }
        return validate(data, at: paths, invalid: invalid)
    }

    /// Checks `data` against the part beside its state: the recorded final name must be the
    /// one `paths` derive, and every field must make sense for the part's length.
    static func validate(_ data: ResumeData, at paths: DownloadPaths, invalid: (String) -> Void) -> ResumeData? {
        let recordedName = data.finalPath.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        guard recordedName == paths.name else {
            invalid("ignoring '\(paths.statePath)': it names another file")
            return nil
        }
        let partLength = regularFileLength(paths.partPath)
        switch data.validated(partLength: partLength ?? 0) {
        case .success(var valid):
            valid.partPath = paths.partPath
            valid.finalPath = paths.finalPath
            return valid
        case .failure(let reason):
            invalid("ignoring '\(paths.statePath)': \(reason.description)")
            return nil
        }
    }

    static func remove(at paths: DownloadPaths) {
        unlink(paths.statePath)
    }

    /// A state file found in a directory: whose it is, and its state when it is readable.
    struct Found: Sendable {
        /// The state file's name (`NAME.swget`).
        let name: String
        let originalURL: String
        let sessionIdentifier: String?
        /// nil when the file names its owner but is not a state swget can read (an unknown
        /// version, a field of the wrong type, an inverted range): reported, never used.
        let data: ResumeData?
    }

    /// The two fields that say whose a state file is, readable even when the rest is not.
    private struct Owner: Decodable {
        let originalURL: String
        let sessionIdentifier: String?
    }

    /// The prefix of the temporary file a state is written to before its rename.
    static let temporaryPrefix = ".swget-state-"
    /// A temporary state file is locked by its writer until renamed; one that is unlocked and
    /// at least this old was left by a process killed between writing and renaming it.
    static let abandonedTemporaryAge: Int = 1

    /// What one read of a directory found.
    struct Scan {
        /// The state files that name their owner (those not yet claimed, in the session's index).
        var states: [Found]
        /// The names of the part files; nil when there were more than ``maxListedParts`` or the
        /// directory could not be read, none when it does not exist.
        let partNames: Set<String>?
    }

    /// Reads `directory` once for its state and part files. Temporary state files that a killed
    /// process left behind are removed on the way.
    static func scan(_ directory: String) -> Scan {
        guard let dir = opendir(directory.isEmpty ? "." : directory) else {
            return Scan(states: [], partNames: errno == ENOENT ? [] : nil)
        }
        defer { closedir(dir) }
        var found: [Found] = []
        var partNames: Set<String>? = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasPrefix(temporaryPrefix) {
                removeIfAbandoned(DownloadPaths.join(directory, name))
                continue
            }
            if name.hasSuffix(DownloadPaths.partSuffix) {
                if let count = partNames?.count, count < maxListedParts { partNames?.insert(name) } else { partNames = nil }
                continue
            }
            guard name.hasSuffix(DownloadPaths.stateSuffix), !name.hasPrefix("."), found.count < 100_000,
                  let bytes = readRegularFile(DownloadPaths.join(directory, name)) else { continue }
            if let data = ResumeData(serialized: bytes) {
                found.append(Found(name: name, originalURL: data.originalURL, sessionIdentifier: data.sessionIdentifier, data: data))
            } else if let owner = try? JSONDecoder().decode(Owner.self, from: Data(bytes)) {
                found.append(Found(name: name, originalURL: owner.originalURL, sessionIdentifier: owner.sessionIdentifier, data: nil))
            }
        }
        return Scan(states: found, partNames: partNames)
    }

    /// The most part-file names a scan remembers; a directory with more is looked up name by name.
    static let maxListedParts = 100_000

    /// Removes the temporary state file at `path` if its writer is gone: a regular file that
    /// nobody holds the lock of, not modified for ``abandonedTemporaryAge`` seconds.
    private static func removeIfAbandoned(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
              time(nil) - info.st_mtim.tv_sec >= abandonedTemporaryAge,
              flock(fd, LOCK_EX | LOCK_NB) == 0 else { return }
        unlink(path)
    }

    /// The contents of a regular file (never through a symlink), at most ``maxStateBytes``.
    private static func readRegularFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) <= maxStateBytes else { return nil }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= maxStateBytes {
            let n = read(fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return bytes.count <= maxStateBytes ? bytes : nil
    }

    /// The length of a regular file at `path` (not following a symlink); nil when there is none.
    static func regularFileLength(_ path: String) -> Int64? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    private static func ioError(_ message: String) -> SessionError {
        let code = errno
        return SessionError.fileIO.with("\(message): \(String(cString: strerror(code)))").errno(code)
    }
}

/// What a session found on disk, read once per directory: the resume states, and which part
/// files were there. A batch of a thousand downloads into one directory reads it once, not a
/// thousand times. A state is handed to at most one task; states this session writes later
/// belong to tasks that already hold them.
///
/// The part-file names spare a small file's download its lookup of `NAME.part` (a name whose
/// part exists is passed over, ``UnnamedFile``): the lookup of a name that is not there was a
/// fifth of the file-system time of a batch of small files. They answer only while this
/// session has made no part file anywhere (``notePartFile()``); after that every name is
/// looked up again. A part another process makes later is not seen, exactly as it would not
/// be a moment after a lookup: the link never replaces a file, and a rename of that part
/// takes the next free name.
final class ResumeStateIndex: Sendable {
    private struct Contents {
        var directories: [String: ResumeStore.Scan] = [:]
        var madePartFile = false
    }

    private let contents = NIOLockedValueBox(Contents())

    /// Takes the state in `directory` that continues `originalURL` for `identifier`, with the
    /// paths its file name derives. `invalid` hears about states that fail validation, or that
    /// name this download but cannot be read.
    func claim(in directory: String, originalURL: () -> String, identifier: String,
               invalid: (String) -> Void) -> (DownloadPaths, ResumeData)? {
        let candidates = contents.withLockedValue { contents -> [ResumeStore.Found] in
            let found = contents.directories[directory]?.states ?? {
                let read = ResumeStore.scan(directory)
                contents.directories[directory] = read
                return read.states
            }()
            // Most often the directory holds no state at all: one lookup, no URL made.
            guard !found.isEmpty else { return [] }
            let originalURL = originalURL()
            let mine = { (found: ResumeStore.Found) in found.originalURL == originalURL && found.sessionIdentifier == identifier }
            let matching = found.filter(mine)
            contents.directories[directory]?.states.removeAll(where: mine)
            return matching
        }
        for found in candidates {
            guard let data = found.data else {
                invalid("ignoring '\(DownloadPaths.join(directory, found.name))': not a resume state swget can read")
                continue
            }
            let candidate = (name: found.name, data: data)
            let recordedName = candidate.data.finalPath.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
            guard let paths = DownloadPaths(stateFileName: candidate.name, in: directory, finalName: recordedName) else {
                invalid("ignoring '\(DownloadPaths.join(directory, candidate.name))': it names another file")
                continue
            }
            if let valid = ResumeStore.validate(candidate.data, at: paths, invalid: invalid) { return (paths, valid) }
        }
        return nil
    }

    /// True when the part file `partName` in `directory` is known to be absent: the directory
    /// was read, had no such part, and this session has made no part file since. False means
    /// "look it up".
    func knowsAbsent(partName: String, in directory: String) -> Bool {
        contents.withLockedValue { contents in
            guard !contents.madePartFile, let names = contents.directories[directory]?.partNames else { return false }
            return !names.contains(partName)
        }
    }

    /// This session made (or moved) a part file: from now on part names are looked up.
    func notePartFile() {
        contents.withLockedValue { $0.madePartFile = true }
    }
}
