import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// Resume and crash safety for download tasks: continuing from resume data or from the state
/// a background session left on disk, judging each answer with ``ResumeNegotiation``, and
/// checkpointing the state while bytes flow.
extension DownloadTask {
    /// Before each attempt: find what can be continued, then ask only for the missing bytes.
    func prepareResume(_ request: Request) async throws(SessionError) -> Request {
        try adoptExistingBytes()
        let resume = progress.withLockedValue { $0.resume }
        guard let resume, let sink = progress.withLockedValue({ $0.sink }) else {
            progress.withLockedValue { $0.requestedOffset = nil }
            return request
        }
        switch ResumeNegotiation.plan(for: resume) {
        case .fresh:
            if sink.isStandardOutput && resume.bytesOnDisk > 0 {
                throw SessionError.restart("cannot continue a transfer to standard output without validators")
            }
            try position(sink, at: 0)
            progress.withLockedValue {
                $0.requestedOffset = nil
                $0.resume?.bytesOnDisk = 0
            }
            return request
        case .resume(let offset, let headers):
            var ranged = request
            if resume.finalURL != resume.originalURL, let url = Request(string: resume.finalURL)?.url { ranged.url = url }
            for header in headers { ranged.headers.set(header.name, header.value) }
            progress.withLockedValue { $0.requestedOffset = offset }
            return ranged
        }
    }

    /// Judges the final response: a range answer is appended, restarted or already complete;
    /// a fresh 2xx answer records its validators.
    func interceptResume(_ response: Response, framing: ResponseFraming, on connection: HTTPConnection) async throws(SessionError) -> Bool {
        let (requested, resume, sink) = progress.withLockedValue { ($0.requestedOffset, $0.resume, $0.sink) }
        guard requested != nil, let resume, let sink else {
            if response.isSuccess { recordValidators(of: response, startingAt: 0) }
            return false
        }
        switch ResumeNegotiation.evaluate(status: response.statusCode, headers: response.headers, resuming: resume) {
        case .append(let offset):
            progress.withLockedValue { $0.writeOffset = offset }
            recordValidators(of: response, startingAt: offset)
            return false
        case .restartWithThisBody:
            if sink.isStandardOutput {
                session.pool.release(connection, reusable: false)
                throw SessionError.badResponse.with("the file changed on the server; cannot restart a transfer to standard output")
            }
            recordValidators(of: response, startingAt: 0)
            return false
        case .restartWithNewRequest(let reason):
            session.pool.release(connection, reusable: false)
            if sink.isStandardOutput {
                throw SessionError.badResponse.with("\(reason); cannot restart a transfer to standard output")
            }
            try position(sink, at: 0)
            // Nothing stored is worth anything now: the next answer starts the state afresh.
            progress.withLockedValue { $0.resume = nil }
            throw SessionError.restart(reason)
        case .complete:
            session.pool.release(connection, reusable: framing.keepAlive)
            mutable.withLockedValue { $0.bytesReceived = resume.bytesOnDisk }
            try await finish(sink)
            return true
        case .notApplicable:
            return false
        }
    }

    /// At the end: a failed task closes its file, keeps the `.part` with its state, and hands
    /// out resume data when the bytes can be continued.
    func finalizeResume(_ error: SessionError?) async -> SessionError? {
        guard var error else { return nil }
        let (sink, resume) = progress.withLockedValue { ($0.sink, $0.resume) }
        progress.withLockedValue { $0.sink = nil }
        switch sink {
        case .part(let file):
            // Corrupt encoded data, or a file over the size limit: nothing worth keeping.
            let worthless = error == SessionError.decodingFailed || error == SessionError.tooLarge
            let kept = resume.map { data in data.segments.map { $0.reduce(0) { $0 + $1.count } } ?? data.bytesOnDisk } ?? 0
            let bytes = worthless ? 0 : kept
            if bytes > 0, let resume {
                let data = resume.located(at: file)
                if session.configuration.backgroundIdentifier != nil { checkpoint(data, of: file) } else { fdatasync(file.fileDescriptor) }
                file.abandon()
                progress.withLockedValue { $0.partPath = file.partPath }
                error.resumeData = data
            } else {
                file.abandon()
                unlink(file.partPath)  // nothing worth resuming
                ResumeStateFile.remove(forPart: file.partPath)
            }
        case .inPlace(let fd, _, let closeWhenDone):
            if closeWhenDone { close(fd) }
        case nil:
            break
        }
        return error
    }

    /// After each progress event: the bytes so far, and for background sessions a durable
    /// checkpoint (data synced before the state that claims it) once a second, or sooner when
    /// 64 MiB arrived since the last one, so a kill -9 on a fast link loses little.
    func recordProgress(_ total: Int64, sink: Sink) {
        mutable.withLockedValue { $0.bytesReceived = total }
        let now = NIODeadline.now()
        let checkpoint: ResumeData? = progress.withLockedValue { p in
            guard p.decoding.isEmpty else { return nil }  // decoded bytes are never continued
            p.resume?.bytesOnDisk = total
            guard session.configuration.backgroundIdentifier != nil, case .part = sink, total > p.lastCheckpoint,
                  now - p.lastCheckpointTime >= .seconds(1)
                    || total - p.lastCheckpoint >= (p.lastCheckpoint == 0 ? Self.firstCheckpointBytes : Self.checkpointBytes) else { return nil }
            p.lastCheckpointTime = now
            p.lastCheckpoint = total
            return p.resume
        }
        guard let data = checkpoint, case .part(let file) = sink else { return }
        self.checkpoint(data, of: file)
    }

    /// Syncs the part file, then saves `data` as its state: the state never claims bytes that
    /// a crash could still lose.
    func checkpoint(_ data: ResumeData, of file: DestinationFile) {
        if fdatasync(file.fileDescriptor) == 0 { try? ResumeStateFile.save(data.located(at: file)) }
    }

    /// Background sessions record the new part file at once, so a process killed before the
    /// first checkpoint still leaves a part that the next run adopts (and restarts).
    func saveInitialState(_ sink: Sink) {
        // The first checkpoint is due a second from now, or after 256 KiB: a small file is done
        // before it, without a single sync.
        progress.withLockedValue { $0.lastCheckpointTime = .now() }
        guard session.configuration.backgroundIdentifier != nil, case .part(let file) = sink,
              var data = progress.withLockedValue({ $0.resume }) else { return }
        data.bytesOnDisk = 0
        try? ResumeStateFile.save(data.located(at: file), durable: false)
    }

    static let checkpointBytes: Int64 = 64 << 20
    /// The first checkpoint comes sooner: a file that is more than a few round trips long is
    /// worth resuming, while a small one finishes before any sync.
    static let firstCheckpointBytes: Int64 = 256 << 10

    /// Starts the resume state from a response that begins at `offset`.
    private func recordValidators(of response: Response, startingAt offset: Int64) {
        let total: Int64? = if response.statusCode == 206 {
            ContentRange(response.headers["Content-Range"] ?? "")?.total
        } else {
            response.expectedContentLength
        }
        let identifier = session.configuration.backgroundIdentifier
        progress.withLockedValue { p in
            p.writeOffset = offset
            var data = p.resume ?? ResumeData(originalURL: originalRequest.url.absoluteString, finalURL: response.url.absoluteString,
                                             etag: nil, lastModified: nil, expectedLength: nil, bytesOnDisk: 0,
                                             partPath: "", finalPath: "", sessionIdentifier: identifier)
            data.finalURL = response.url.absoluteString
            data.etag = response.headers["ETag"] ?? (offset > 0 ? data.etag : nil)
            data.lastModified = response.headers["Last-Modified"] ?? (offset > 0 ? data.lastModified : nil)
            data.expectedLength = total ?? (offset > 0 ? data.expectedLength : nil)
            data.bytesOnDisk = offset
            data.acceptsUnvalidatedRange = false
            if offset == 0 {
                data.contentEncoding = BodyDecoding.normalizedEncoding(response.headers["Content-Encoding"])
                data.segments = nil
            }
            p.resume = data
        }
    }

    /// First attempt only: take over bytes left by an earlier run — explicit resume data, the
    /// state file of a background session, or (``DownloadDestination/continuePartial``) a file
    /// another tool left.
    private func adoptExistingBytes() throws(SessionError) {
        let (searched, given) = progress.withLockedValue { p -> (Bool, ResumeData?) in
            defer { p.searchedForState = true }
            return (p.searchedForState, p.resume)
        }
        guard !searched else { return }
        let found = given ?? stateLeftOnDisk() ?? foreignPartialFile()
        guard var data = found else { return }
        let (directory, name) = Self.split(data.finalPath)
        let file: DestinationFile?
        do {
            file = try DestinationFile.resume(directory: directory, name: name,
                                              policy: destination.target == .directory(directory) ? .unique : .overwrite)
        } catch {
            throw SessionError.fileIO.with(error.description)
        }
        guard let file else {
            progress.withLockedValue { $0.resume = nil }
            return
        }
        // Never trust more than is both claimed and present; a longer part is cut back (a
        // segmented one keeps its ranges, clipped to what the file holds).
        data.bytesOnDisk = min(data.bytesOnDisk, file.existingLength)
        data.segments = data.segments?.compactMap { range in
            range.start < file.existingLength ? ByteRange(start: range.start, end: min(range.end, file.existingLength)) : nil
        }
        data.partPath = file.partPath
        progress.withLockedValue {
            $0.resume = data
            $0.sink = .part(file)
        }
        if data.segments == nil { try position(.part(file), at: data.bytesOnDisk) }
    }

    /// A background session's state beside the destination, for this very URL.
    private func stateLeftOnDisk() -> ResumeData? {
        guard let identifier = session.configuration.backgroundIdentifier else { return nil }
        let url = originalRequest.url.absoluteString
        switch destination.target {
        case .directory(let directory):
            return session.resumeStates.claim(in: directory, originalURL: url, identifier: identifier)
        case .file(let path):
            guard let data = ResumeStateFile.load(ResumeStateFile.path(forPart: path + ".part")),
                  data.originalURL == url, data.sessionIdentifier == identifier else { return nil }
            return data
        case .standardOutput:
            return nil
        }
    }

    /// `-c`: a `NAME.part` or `NAME` that another tool (or an older swget) left, named after
    /// the URL. A complete `NAME` is moved to `NAME.part` while it is checked and continued.
    private func foreignPartialFile() -> ResumeData? {
        guard destination.continuePartial else { return nil }
        let finalPath: String
        switch destination.target {
        case .directory(let directory):
            let name = SuggestedFilename.make(contentDisposition: nil, requestURL: originalRequest.url,
                                              finalURL: originalRequest.url, mimeType: nil,
                                              useContentDisposition: false, trustServerNames: false)
            finalPath = Self.join(directory, name)
        case .file(let path):
            finalPath = path
        case .standardOutput:
            return nil
        }
        let partPath = finalPath + ".part"
        var info = stat()
        if stat(partPath, &info) != 0 {
            guard stat(finalPath, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, rename(finalPath, partPath) == 0 else {
                return nil
            }
        }
        guard (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 else { return nil }
        var data = ResumeData(originalURL: originalRequest.url.absoluteString, finalURL: originalRequest.url.absoluteString,
                              etag: nil, lastModified: nil, expectedLength: nil, bytesOnDisk: Int64(info.st_size),
                              partPath: partPath, finalPath: finalPath,
                              sessionIdentifier: session.configuration.backgroundIdentifier)
        data.acceptsUnvalidatedRange = true
        return data
    }
}

extension ResumeData {
    /// The same state, naming `file`'s part and final paths.
    func located(at file: DestinationFile) -> ResumeData {
        var data = self
        data.partPath = file.partPath
        data.finalPath = file.finalPath
        return data
    }
}
