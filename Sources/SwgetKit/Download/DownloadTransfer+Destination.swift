#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Where a download's bytes go: bytes an earlier run left (resume data, a background session's
/// state beside its part, a partial file another tool left for `-c`), or a new destination.
extension DownloadTransfer {
    /// Before the first request: take over what can be continued. Invalid state is reported
    /// (a warning) and ignored, never trusted and never fatal.
    func adoptExistingBytes() throws(SessionError) {
        let warn: (String) -> Void = { [task] in task.emit(.warning(DisplayText.sanitize($0))) }
        var found: (DownloadPaths, ResumeData)?
        if let given = task.resumeData {
            found = try relocate(given)
        } else if let identifier = session.configuration.backgroundIdentifier {
            found = stateLeftOnDisk(identifier: identifier, invalid: warn)
        }
        if let (paths, data) = found {
            try openPart(paths, data, invalid: warn)
        } else if task.destination.continuePartial {
            try continueForeignFile()
        }
    }

    /// Opens the part at `paths` to continue it with `data`.
    private func openPart(_ paths: DownloadPaths, _ data: ResumeData, invalid: (String) -> Void) throws(SessionError) {
        let part: DestinationFile?
        do {
            part = try DestinationFile.resume(directory: paths.directory, name: paths.name, policy: policy)
        } catch {
            throw SessionError.fileIO.with(error.description).errno(error.errno)
        }
        guard let part else {
            // The part is gone: nothing to continue, and the state describes nothing. A kill
            // between a publish (the part renamed to NAME) and the state's removal leaves one
            // beside the finished file; a rerun that skips NAME (`-nc`) or picks another name
            // would otherwise leave it there for good.
            ResumeStore.remove(at: paths)
            return
        }
        guard case .success(var valid) = data.validated(partLength: part.existingLength) else {
            invalid("ignoring the resume state of '\(paths.partPath)': it does not match the part file")
            part.abandon()
            return
        }
        valid = valid.located(at: paths)
        state.resume = valid
        state.saved(valid)
        let opened = OpenDownload.part(part)
        file = opened
        if valid.segments == nil { try opened.position(at: valid.bytesOnDisk) }
        state.startedFile(now: .now())
        announceDestination(part.partPath)
    }

    /// The collision policy of this task's destination.
    var policy: DestinationFile.Policy {
        switch task.destination.target {
        case .directory:
            switch task.destination.collision {
            case .skip: .noClobber
            case .uniqueName: .unique
            case .replace: .overwrite
            }
        case .file, .standardOutput: .overwrite
        }
    }

    /// Resume data from the caller: its part, moved to where the task's destination says the
    /// file goes when that differs from where the data left it.
    private func relocate(_ data: ResumeData) throws(SessionError) -> (DownloadPaths, ResumeData)? {
        guard let source = DownloadPaths(finalPath: data.finalPath) else { return nil }
        let target: DownloadPaths
        switch task.destination.target {
        case .directory(let directory):
            guard let paths = DownloadPaths(directory: directory, name: source.name) else { return nil }
            target = paths
        case .file(let path):
            guard let paths = DownloadPaths(finalPath: path) else { return nil }
            target = paths
        case .standardOutput:
            return nil
        }
        if target.partPath != source.partPath, ResumeStore.regularFileLength(source.partPath) != nil {
            session.resumeStates.notePartFile()
            let code = DestinationFile.renameNoReplace(source.partPath, target.partPath)
            if code == EXDEV {
                try copyFile(source.partPath, to: target.partPath)
                unlink(source.partPath)
            } else if code != 0 {
                throw SessionError.fileIO.with("cannot move '\(source.partPath)' to '\(target.partPath)': \(String(cString: strerror(code)))").errno(code)
            }
            ResumeStore.remove(at: source)
        }
        return (target, data)
    }

    /// A background session's state beside the destination, for this very URL.
    private func stateLeftOnDisk(identifier: String, invalid: (String) -> Void) -> (DownloadPaths, ResumeData)? {
        let originalURL = { [task] in URLDisplay.masked(task.originalRequest.url).absoluteString }
        switch task.destination.target {
        case .directory(let directory):
            return session.resumeStates.claim(in: directory, originalURL: originalURL, identifier: identifier, invalid: invalid)
        case .file(let path):
            guard let paths = DownloadPaths(finalPath: path),
                  let data = ResumeStore.load(at: paths, invalid: invalid),
                  data.originalURL == originalURL(), data.sessionIdentifier == identifier else { return nil }
            return (paths, data)
        case .standardOutput:
            return nil
        }
    }

    /// `-c`: a `NAME.part` or `NAME` that another tool (or an older swget) left, named after
    /// the URL. A part is continued like swget's own. The user's `NAME` is continued in place:
    /// never renamed, never truncated, never followed through a symlink.
    private func continueForeignFile() throws(SessionError) {
        let finalPath: String
        switch task.destination.target {
        case .directory(let directory):
            let name = SuggestedFilename.make(contentDisposition: nil, requestURL: task.originalRequest.url,
                                              finalURL: task.originalRequest.url, mimeType: nil,
                                              useContentDisposition: false, trustServerNames: false,
                                              defaultName: task.destination.defaultPageName,
                                              transform: task.destination.fileNameTransform)
            finalPath = DownloadPaths.join(directory, name)
        case .file(let path):
            finalPath = path
        case .standardOutput:
            return
        }
        guard let paths = DownloadPaths(finalPath: finalPath) else { return }
        let url = URLDisplay.masked(task.originalRequest.url).absoluteString
        if let length = ResumeStore.regularFileLength(paths.partPath), length > 0 {
            var data = ResumeData(originalURL: url, finalURL: url, etag: nil, lastModified: nil, expectedLength: nil,
                                  bytesOnDisk: length, partPath: paths.partPath, finalPath: paths.finalPath,
                                  sessionIdentifier: session.configuration.backgroundIdentifier)
            data.acceptsUnvalidatedRange = true
            try openPart(paths, data, invalid: { _ in })
            return
        }
        var info = stat()
        guard lstat(finalPath, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            throw SessionError.fileIO.with("'\(finalPath)' is a symbolic link; refusing to continue through it")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 else { return }
        let fd = open(finalPath, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            let code = errno
            throw SessionError.fileIO.with("cannot open '\(finalPath)': \(String(cString: strerror(code)))").errno(code)
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw SessionError.fileIO.with("cannot use '\(finalPath)': another download is writing it")
        }
        var data = ResumeData(originalURL: url, finalURL: url, etag: nil, lastModified: nil, expectedLength: nil,
                              bytesOnDisk: Int64(info.st_size), partPath: finalPath, finalPath: finalPath,
                              sessionIdentifier: nil)
        data.acceptsUnvalidatedRange = true
        state.resume = data
        let opened = OpenDownload.inPlace(fd: fd, path: finalPath, continuesUserFile: true)
        file = opened
        try opened.position(at: data.bytesOnDisk)
        announceDestination(finalPath)
    }

    /// Opens where the body goes (nil file afterwards: skipped because the name exists).
    /// `whole`: the body arrived with the head, so it goes to an unnamed file (``UnnamedFile``).
    func openDestination(for response: Response, whole: Bool = false) async throws(SessionError) {
        let opened: OpenDownload?
        do {
            opened = try newDestination(for: response, whole: whole)
        } catch let error as DestinationError {
            throw SessionError.fileIO.with(error.description).errno(error.errno)
        } catch let error as SessionError {
            throw error
        } catch {
            throw SessionError.fileIO.with("\(error)")
        }
        guard let opened else { return }
        file = opened
        freshFile = true  // a new part or unnamed file is empty (a reserved part is truncated)
        state.startedFile(now: .now())
        if checkpoints, let paths = opened.paths, var data = state.resume {
            // The new part's first state claims no bytes: unsynced, so a small file needs no sync.
            data.bytesOnDisk = 0
            data.segments = nil
            try? ResumeStore.save(data.located(at: paths), at: paths, durable: false)
        }
        // An unnamed file has no name until the link: it is announced with the one it gets.
        if case .unnamed = opened {} else { announceDestination(opened.visiblePath) }
    }

    private func newDestination(for response: Response, whole: Bool) throws -> OpenDownload? {
        switch task.destination.target {
        case .standardOutput:
            return .standardOutput
        case .file(let path):
            if let fd = try Self.openExistingSpecialFile(path) {
                return .inPlace(fd: fd, path: path, continuesUserFile: false)
            }
            session.resumeStates.notePartFile()
            guard let paths = DownloadPaths(finalPath: path),
                  let file = try DestinationFile.reserve(directory: paths.directory, name: paths.name, policy: .overwrite) else {
                throw SessionError.fileIO.with("cannot create '\(path)'")
            }
            return .part(file)
        case .directory(let directory):
            var name = suggestedName(for: response)
            if state.decodesPayload == true {
                // `x.part.gz` decodes to `x.part`: the rewritten name obeys the same rule.
                name = FilenameSanitizer.withoutReservedSuffix(BodyDecoding.decodedName(name))
            }
            if whole {
                switch try UnnamedFile.create(directory: directory, name: name, policy: policy, knownParts: session.resumeStates) {
                case .file(let file):
                    return .unnamed(file)
                case .skipped(let path):
                    task.findings.withLockedValue { $0.skippedExistingFile = path }
                    return nil
                case .unsupported:
                    break
                }
            }
            // Noted before the part exists, so that no small file takes its name meanwhile.
            session.resumeStates.notePartFile()
            guard let file = try DestinationFile.reserve(directory: directory, name: name, policy: policy) else {
                task.findings.withLockedValue { $0.skippedExistingFile = DownloadPaths.join(directory, name) }
                return nil
            }
            return .part(file)
        }
    }

    /// `-O /dev/null` and friends: an existing path that is not a regular file is written in
    /// place (renaming over a device or FIFO would replace it).
    private static func openExistingSpecialFile(_ path: String) throws(SessionError) -> Int32? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG else { return nil }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw SessionError.fileIO.with("'\(path)' is a directory")
        }
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw SessionError.fileIO.with("cannot open '\(path)': \(String(cString: strerror(code)))").errno(code)
        }
        return fd
    }

    /// Copies a part to another file system (resume data pointed a task elsewhere).
    private func copyFile(_ source: String, to target: String) throws(SessionError) {
        let input = open(source, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        defer {
            if input >= 0 { close(input) }
            if output >= 0 { close(output) }
        }
        guard input >= 0, output >= 0 else {
            let code = errno
            throw SessionError.fileIO.with("cannot copy '\(source)' to '\(target)': \(String(cString: strerror(code)))").errno(code)
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw SessionError.fileIO.with("cannot read '\(source)'").errno(errno) }
            if n == 0 { return }
            var landed = 0
            var failure: SessionError?
            buffer.withUnsafeBytes { raw in
                do throws(SessionError) {
                    try FileWriter.writeAll(UnsafeRawBufferPointer(rebasing: raw[0..<n]), to: output, landed: &landed)
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }
    }
}
