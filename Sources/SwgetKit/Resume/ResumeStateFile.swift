import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// The on-disk home of a background download's ``ResumeData``: `NAME.swget` beside `NAME.part`,
/// replaced atomically (temp file, fsync, rename, fsync of the directory), so a crash leaves
/// either the old state or the new one, never a torn file.
enum ResumeStateFile {
    static let suffix = ".swget"

    /// `dir/NAME.part` → `dir/NAME.swget`.
    static func path(forPart partPath: String) -> String {
        (partPath.hasSuffix(".part") ? String(partPath.dropLast(5)) : partPath) + suffix
    }

    /// Writes the state atomically. `durable: false` skips the syncs: for the first state of a
    /// new part, which claims no bytes (losing it in a crash only leaves a part to restart).
    static func save(_ data: ResumeData, durable: Bool = true) throws(SessionError) {
        let target = path(forPart: data.partPath)
        let directory = DownloadTask.split(target).directory
        var template = Array((directory + "/.swget-state-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw ioError("cannot write resume state in '\(directory)'") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let bytes = data.serialized()
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = durable ? fsync(fd) : 0
        close(fd)
        guard written == bytes.count, synced == 0, rename(temporary, target) == 0 else {
            unlink(temporary)
            throw ioError("cannot write resume state '\(target)'")
        }
        let dirFD = durable ? open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1
        if dirFD >= 0 {
            fsync(dirFD)
            close(dirFD)
        }
    }

    static func load(_ statePath: String) -> ResumeData? {
        let fd = open(statePath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return ResumeData(serialized: bytes)
    }

    static func remove(forPart partPath: String) {
        unlink(path(forPart: partPath))
    }

    /// Every state file in `directory` (one directory read).
    static func all(in directory: String) -> [ResumeData] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var found: [ResumeData] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            guard name.hasSuffix(suffix), !name.hasPrefix(".") else { continue }
            if let data = load(DownloadTask.join(directory, name)) { found.append(data) }
        }
        return found
    }

    private static func ioError(_ message: String) -> SessionError {
        SessionError.fileIO.with("\(message): \(String(cString: strerror(errno)))")
    }
}

/// The state files a session found on disk, read once per directory: a batch of a thousand
/// downloads into one directory reads it once, not a thousand times. A state is handed to at
/// most one task; states this session writes later belong to tasks that already hold them.
final class ResumeStateIndex: Sendable {
    private let directories = NIOLockedValueBox<[String: [ResumeData]]>([:])

    /// Takes the state in `directory` that continues `originalURL` for `identifier`, if any.
    func claim(in directory: String, originalURL: String, identifier: String) -> ResumeData? {
        directories.withLockedValue { directories in
            if directories[directory] == nil { directories[directory] = ResumeStateFile.all(in: directory) }
            guard let index = directories[directory]?.firstIndex(where: {
                $0.originalURL == originalURL && $0.sessionIdentifier == identifier
            }) else { return nil }
            return directories[directory]?.remove(at: index)
        }
    }
}
