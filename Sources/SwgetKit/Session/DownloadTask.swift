import NIOConcurrencyHelpers
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// A task whose body streams into a file: the counterpart of NSURLSessionDownloadTask (with
/// NSURLDownload's destination rules). Bytes go to `NAME.part` beside the final name and are
/// renamed to `NAME` only when the body is complete; on failure the `.part` stays, and the
/// error's ``SessionError/resumeData`` continues it (see `DownloadTask+Resume.swift`).
public final class DownloadTask: SessionTask, @unchecked Sendable {
    public let destination: DownloadDestination

    /// Where the bytes go and what is known about them; survives between attempts.
    struct Progress {
        var sink: Sink?
        /// What is durable and valid so far (bytesOnDisk, validators). nil until known.
        var resume: ResumeData?
        /// Set by `prepare` when the request asks for a range starting here.
        var requestedOffset: Int64?
        /// Where this attempt's body starts in the file.
        var writeOffset: Int64 = 0
        var location: String?
        var skippedExistingFile: String?
        var partPath: String?
        var lastCheckpoint: Int64 = 0
        var lastCheckpointTime = NIODeadline.distantPast
        var searchedForState = false
        /// The delegate's answer about decoding a gzip payload, asked once per task.
        var decodesPayload: Bool?
        /// The codings this attempt undoes (empty: bytes stored as sent).
        var decoding: [ContentCoding] = []
        /// Bytes in the file after decoding, when the body was decoded.
        var decodedBytes: Int64?
        /// Set when the server answered a segment with the whole file: one connection only.
        var segmentsDisabled = false
        /// The workers' shared plan while a segmented transfer runs.
        var segmentBoard: SegmentBoard?
    }

    let progress = NIOLockedValueBox(Progress())

    init(session: Session, identifier: Int, request: Request, destination: DownloadDestination, resumeData: ResumeData? = nil) {
        self.destination = destination
        super.init(session: session, identifier: identifier, request: request)
        if let resumeData { progress.withLockedValue { $0.resume = resumeData } }
    }

    /// Where the finished file was published, once the task succeeded ("-" for stdout).
    public var location: String? { progress.withLockedValue { $0.location } }
    /// Set instead of ``location`` when the collision policy was ``DownloadDestination/Collision/skip``
    /// and the file already existed: the task succeeded without downloading.
    public var skippedExistingFile: String? { progress.withLockedValue { $0.skippedExistingFile } }
    /// The `.part` file a failed task left behind, if any.
    public var partialFile: String? { progress.withLockedValue { $0.partPath } }
    /// The codings undone on the way to the file (content codings, or a gzip payload the
    /// delegate chose to decode); empty when the bytes were stored as sent.
    public var decodedCodings: [ContentCoding] { progress.withLockedValue { $0.decoding } }
    /// The size of the decoded file, for a decoded body (``countOfBytesReceived`` counts the
    /// bytes as sent).
    public var countOfBytesDecoded: Int64? { progress.withLockedValue { $0.decodedBytes } }

    /// Cancels the task and returns what continues it later (nil when nothing is worth keeping).
    public func cancelProducingResumeData() async -> ResumeData? {
        cancel()
        return await completion()?.resumeData
    }

    /// An open destination: either a reserved `.part` to publish, or a descriptor written in place.
    enum Sink: Sendable {
        case part(DestinationFile)
        case inPlace(fd: Int32, path: String, closeWhenDone: Bool)

        var fd: Int32 {
            switch self {
            case .part(let file): file.fileDescriptor
            case .inPlace(let fd, _, _): fd
            }
        }

        var visiblePath: String {
            switch self {
            case .part(let file): file.partPath
            case .inPlace(_, let path, _): path
            }
        }

        var isStandardOutput: Bool {
            if case .inPlace(_, "-", _) = self { return true }
            return false
        }
    }

    // MARK: hooks (the resume logic lives in DownloadTask+Resume.swift)

    override func cancel(because reason: SessionError) {
        super.cancel(because: reason)
        progress.withLockedValue { $0.segmentBoard }?.closeAll()
    }

    override func prepare(_ request: Request) async throws(SessionError) -> Request {
        try await prepareResume(request)
    }

    override func intercept(_ response: Response, framing: ResponseFraming, on connection: HTTPConnection) async throws(SessionError) -> Bool {
        try await interceptResume(response, framing: framing, on: connection)
    }

    override func finalize(_ error: SessionError?) async -> SessionError? {
        await finalizeResume(error)
    }

    // MARK: the body

    override func receiveBody(of response: Response, framing: ResponseFraming, on connection: HTTPConnection) async throws(SessionError) {
        let transform: BodyTransform
        let opened: Sink?
        do {
            transform = try await bodyTransform(for: response)
            opened = try await openSink(for: response)
        } catch {
            session.pool.release(connection, reusable: false)
            throw error
        }
        guard let sink = opened else {
            session.pool.release(connection, reusable: false)
            return
        }
        let offset = progress.withLockedValue { $0.writeOffset }
        let segments = segmentPlan(for: response, offset: offset, transform: transform, sink: sink)
        let storedRanges = progress.withLockedValue { $0.resume?.segments?.isEmpty == false }
        do {
            // A segmented transfer keeps what lies beyond `offset`: ranges already written, or
            // bytes its workers will overwrite.
            if segments == nil || (offset == 0 && !storedRanges) { try position(sink, at: offset) }
        } catch {
            session.pool.release(connection, reusable: false)
            throw error
        }
        let expected = progress.withLockedValue { $0.resume?.expectedLength } ?? response.expectedContentLength.map { $0 + offset }
        if offset > 0 {
            await session.delegate?.downloadTask(self, didResumeAtOffset: offset, expectedTotalBytes: expected)
        }
        if let segments {
            try await receiveSegments(segments, first: connection, framing: framing, response: response, sink: sink)
            return
        }

        var failure: SessionError?
        var written: Int64 = 0
        await connection.streamBody(.file(fd: sink.fd, progressInterval: .milliseconds(100), transform: transform)) { event in
            switch event {
            case .progress(let count):
                let delta = count - written
                written = count
                recordProgress(offset + written, sink: sink)
                await session.delegate?.downloadTask(self, didWriteData: delta, totalBytesWritten: offset + written,
                                                     totalBytesExpectedToWrite: expected)
            case .end(let bytes, let decoded):
                written = bytes
                if !transform.decoding.isEmpty { progress.withLockedValue { $0.decodedBytes = decoded } }
            case .failed(let error):
                failure = error
            case .data:
                break
            }
        }
        session.pool.release(connection, reusable: failure == nil && framing.keepAlive)
        if transform.decoding.isEmpty { progress.withLockedValue { $0.resume?.bytesOnDisk = offset + written } }
        if failure == nil, let reason = mutable.withLockedValue({ $0.cancellation }) { failure = reason }
        if let failure { throw failure }
        try await finish(sink)
    }

    /// Decides what this attempt decodes and bounds. Only a body written from byte 0 is
    /// decoded: continued bytes are appended as sent, like the bytes before them.
    private func bodyTransform(for response: Response) async throws(SessionError) -> BodyTransform {
        let (offset, asked, hasSink) = progress.withLockedValue { ($0.writeOffset, $0.decodesPayload, $0.sink != nil) }
        var transform = BodyTransform()
        if offset == 0 {
            let judged = BodyDecoding.judge(response, decodeContent: session.configuration.decodesContentEncoding,
                                            name: destinationNameHint(for: response))
            transform.decoding = judged.contentCodings
            if judged.payloadIsGzip {
                var decodes = asked
                if decodes == nil && !hasSink {
                    decodes = await session.delegate?.downloadTask(self, shouldDecodePayloadOfMIMEType: response.mimeType) ?? false
                }
                progress.withLockedValue { $0.decodesPayload = decodes }
                if decodes == true { transform.decoding = [.gzip] }
            }
        }
        let decoding = transform.decoding
        progress.withLockedValue { p in
            p.decoding = decoding
            p.decodedBytes = nil
            // A decoded body cannot be continued (see ResumeData): its state never claims bytes.
            if !decoding.isEmpty { p.resume?.bytesOnDisk = 0 }
        }
        try transform.bound(by: session.configuration.maximumBodyBytes, announced: response.expectedContentLength, after: offset)
        return transform
    }

    /// The sink of an earlier attempt, or a newly opened destination (nil: skipped).
    private func openSink(for response: Response) async throws(SessionError) -> Sink? {
        if let existing = progress.withLockedValue({ $0.sink }) { return existing }
        guard let opened = try openDestination(for: response) else { return nil }
        progress.withLockedValue { $0.sink = opened }
        saveInitialState(opened)
        await session.delegate?.downloadTask(self, didCreateDestinationAt: opened.visiblePath)
        return opened
    }

    /// The name the body would be saved under, for judging whether it is a `.gz` file.
    private func destinationNameHint(for response: Response) -> String {
        if let sink = progress.withLockedValue({ $0.sink }) { return Self.split(sink.visiblePath).name }
        switch destination.target {
        case .directory:
            return response.suggestedFilename(useContentDisposition: destination.useContentDisposition,
                                              trustServerNames: destination.trustServerNames)
        case .file(let path): return Self.split(path).name
        case .standardOutput: return response.url.lastPathComponent
        }
    }

    /// Publishes the complete file and forgets its resume state.
    func finish(_ sink: Sink) async throws(SessionError) {
        let location = try publish(sink)
        if case .part(let file) = sink { ResumeStateFile.remove(forPart: file.partPath) }
        progress.withLockedValue {
            $0.location = location
            $0.sink = nil
            $0.partPath = nil
        }
        await session.delegate?.downloadTask(self, didFinishDownloadingTo: location)
    }

    /// Opens where the body goes; nil when the collision policy says to skip.
    private func openDestination(for response: Response) throws(SessionError) -> Sink? {
        do {
            switch destination.target {
            case .standardOutput:
                return .inPlace(fd: STDOUT_FILENO, path: "-", closeWhenDone: false)
            case .file(let path):
                if let fd = try Self.openExistingSpecialFile(path) {
                    return .inPlace(fd: fd, path: path, closeWhenDone: true)
                }
                let (directory, name) = Self.split(path)
                guard let file = try DestinationFile.reserve(directory: directory, name: name, policy: .overwrite) else {
                    throw SessionError.fileIO.with("cannot create '\(path)'")
                }
                return .part(file)
            case .directory(let directory):
                var name = response.suggestedFilename(useContentDisposition: destination.useContentDisposition,
                                                      trustServerNames: destination.trustServerNames)
                if progress.withLockedValue({ $0.decodesPayload }) == true { name = BodyDecoding.decodedName(name) }
                let policy: DestinationFile.Policy = destination.collision == .skip ? .noClobber : .unique
                guard let file = try DestinationFile.reserve(directory: directory, name: name, policy: policy) else {
                    progress.withLockedValue { $0.skippedExistingFile = Self.join(directory, name) }
                    return nil
                }
                return .part(file)
            }
        } catch let error as DestinationError {
            throw SessionError.fileIO.with(error.description)
        } catch let error as SessionError {
            throw error
        } catch {
            throw SessionError.fileIO.with("\(error)")
        }
    }

    /// Truncates the file to `offset` and moves the write position there (stdout can only
    /// continue where it is).
    func position(_ sink: Sink, at offset: Int64) throws(SessionError) {
        if sink.isStandardOutput { return }
        if case .part = sink, ftruncate(sink.fd, off_t(offset)) != 0 {
            throw SessionError.fileIO.with("cannot truncate '\(sink.visiblePath)': \(String(cString: strerror(errno)))")
        }
        if lseek(sink.fd, off_t(offset), SEEK_SET) < 0, case .part = sink {
            throw SessionError.fileIO.with("cannot seek in '\(sink.visiblePath)': \(String(cString: strerror(errno)))")
        }
    }

    private func publish(_ sink: Sink) throws(SessionError) -> String {
        switch sink {
        case .part(let file):
            do {
                return try file.publish()
            } catch {
                progress.withLockedValue { $0.partPath = file.partPath }
                throw SessionError.fileIO.with(error.description)
            }
        case .inPlace(let fd, let path, let closeWhenDone):
            if closeWhenDone { close(fd) }
            return path
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
            throw SessionError.fileIO.with("cannot open '\(path)': \(String(cString: strerror(errno)))")
        }
        return fd
    }

    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
