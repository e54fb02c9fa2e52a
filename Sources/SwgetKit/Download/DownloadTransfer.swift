#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// One download from its first request to the published file, read top to bottom:
///
/// 1. ``run()``: take over bytes an earlier run left (``adoptExistingBytes()``, in
///    DownloadTransfer+Adopt.swift), run the exchange, then keep or clean up what is left.
/// 2. ``additions()``: before each request, the range to ask for (``DownloadState/plan(toStandardOutput:)``).
/// 3. ``consume(_:)``: for the final answer of each attempt — judge it against the bytes held,
///    refuse error statuses, ask the delegate, open the destination, then stream the body into
///    the file (or hand it to ``SegmentedDownload``) and publish.
///
/// Decisions come from the value types (``DownloadState``, ``ResumeNegotiation``,
/// ``BodyDecoding``); this class does the file system calls and reports events.
final class DownloadTransfer: ResponseConsumer {
    let task: DownloadTask
    var state = DownloadState()
    /// The destination, once opened (or adopted); kept across attempts.
    var file: OpenDownload?
    /// `file` was created empty by this transfer and nothing was written or cut since.
    var freshFile = false
    /// The name the response being consumed suggests, once asked: the decode decision and the
    /// destination both need it (each computation parses the URL and headers again).
    private var suggestedNameOfResponse: String?
    /// The URL of the last `destinationCreated`, for a `finishedDownloading` at the same path
    /// (an unnamed file published under the name it announced): making a file URL costs about
    /// 3,700 instructions.
    var announcedDestination: (path: String, url: URL)?
    /// The `wroteData` of an unnamed file, held until the file is announced: its
    /// `destinationCreated` waits for the link, which picks the name (a taken name is passed
    /// over then).
    private var heldProgress: TaskEvent?
    /// The loader, for segment requests at the current hop.
    private(set) var loader: (any Loader)?
    var session: Session { task.session }
    var checkpoints: Bool { session.configuration.backgroundIdentifier != nil && resumable }
    /// The answer can be continued with a range, split and kept across runs (``Request/isPlainFetch``).
    /// A download from ``DownloadDestination/startOffset`` never is.
    var resumable: Bool { task.originalRequest.isPlainFetch && startOffset == nil }
    /// ``DownloadDestination/startOffset`` when it applies (a positive offset, a plain fetch).
    var startOffset: Int64? {
        let offset = task.destination.startOffset
        return offset > 0 && task.originalRequest.isPlainFetch ? offset : nil
    }
    var toStandardOutput: Bool { task.destination.target == .standardOutput }

    init(task: DownloadTask) {
        self.task = task
    }

    func run() async -> SessionError? {
        var error: SessionError?
        do {
            if resumable { try adoptExistingBytes() }
            let resumeURL = state.resume.flatMap { $0.finalURL != $0.originalURL && $0.bytesOnDisk > 0 ? URL(string: $0.finalURL) : nil }
            let loader = try session.protocols.loader(for: task, startingAt: resumeURL)
            self.loader = loader
            error = await TaskRunner.run(task, loader: loader, consumer: self)
        } catch let failure {
            error = failure
        }
        if let reason = task.cancellation { error = reason }
        return finalize(error)
    }

    // MARK: ResponseConsumer

    func additions() -> [(name: String, value: String)] {
        guard resumable else {
            // No range for the answer to a request with a body: each attempt writes from zero.
            state.resume = nil
            if let file, file.canTruncate { try? cutPart(file, to: 0) }
            return startOffset.map(StartOffset.fields) ?? []
        }
        switch state.plan(toStandardOutput: toStandardOutput) {
        case .fresh(let truncate):
            if truncate, let file, file.canTruncate { try? cutPart(file, to: 0) }
            return []
        case .resume(_, let fields):
            return fields.map { ($0.name, $0.value) }
        case .impossible:
            return []
        }
    }

    func consume(_ final: FinalResponse) async -> Consumed {
        let response = final.response
        suggestedNameOfResponse = nil
        // What the file held before this answer (judging an answer from zero resets it).
        let held = state.resume?.bytesOnDisk ?? 0
        let verdict = state.judge(response, originalURL: task.originalRequest.url,
                                  sessionIdentifier: session.configuration.backgroundIdentifier, toStandardOutput: toStandardOutput)
        // The one decoding decision, made before anyone hears of the response: only a body
        // written from byte 0 is decoded (continued bytes are appended as sent).
        var decoding = BodyDecoding()
        if case .write(from: 0) = verdict {
            decoding = BodyDecoding.judge(response, decodeContent: session.configuration.decodesContentEncoding,
                                          name: destinationNameHint(for: response))
        }
        task.findings.withLockedValue { $0.decoding = decoding }
        if let startOffset {
            // Bytes from the start offset on are a file of their own: nothing to continue later.
            state.resume = nil
            if let problem = StartOffset.problem(status: response.statusCode, contentRange: response.headers["Content-Range"],
                                                 offset: startOffset) {
                task.emit(.response(response))
                return .failed(SessionError.badResponse.with(problem), reusable: false)
            }
        }
        task.emit(.response(response))
        if task.originalRequest.cachePolicy.isNotModified(response) {
            // The caller's copy is current: nothing is written, nothing published.
            task.findings.withLockedValue { $0.notModified = true }
            file?.abandon()
            file = nil
            return .done(reusable: await ExchangeRunner.skipBody(of: final))
        }
        switch verdict {
        case .fail(let reason):
            return .failed(SessionError.badResponse.with(reason), reusable: false)
        case .restart(let reason):
            if let file, !file.canTruncate {
                // wget's rule for `-c`: a 416 means there is nothing after the local bytes.
                if response.statusCode == 416 { return await keepLocalFile(final, held: held, remoteLength: nil) }
                return .failed(refusal(reason), reusable: false)
            }
            if let file { try? cutPart(file, to: 0) }
            return .restart(reason: reason, reusable: false)
        case .complete:
            task.status.withLockedValue { $0.bytesReceived = state.resume?.bytesOnDisk ?? 0 }
            let reusable = await ExchangeRunner.skipBody(of: final)
            return finish(reusable: reusable)
        case .write(let offset):
            // Only a success starts the held bytes over; an error answer leaves them (and the
            // user's own file) alone.
            if offset == 0, state.restartsHeldBytes, response.isSuccess {
                if let file, !file.canTruncate {
                    return await keepLocalFile(final, held: held, remoteLength: response.expectedContentLength)
                }
                task.emit(.restarted(reason: "the server sent the whole file (range ignored or file changed)"))
            }
            return await write(final, from: offset)
        }
    }

    // MARK: the body

    private func write(_ final: FinalResponse, from offset: Int64) async -> Consumed {
        let response = final.response
        let isError = response.statusCode >= 300
        // An error page never lands in the user's own file continued by `-c`.
        let keepsError = task.destination.keepsErrorResponses && file?.canTruncate != false
        if isError && !keepsError || response.statusCode == 204 {
            // An error page is not the file (and a 204 has none): nothing is published.
            let reusable = await ExchangeRunner.skipBody(of: final)
            guard isError else { return finish(reusable: reusable, publishing: false) }
            return .failed(statusError(response), reusable: reusable)
        }
        if await task.decide({ await $0.task(self.task, didReceive: response) }) == .cancel {
            return .failed(SessionError.cancelled, reusable: false)
        }
        if let reason = task.cancellation { return .failed(reason, reusable: false) }  // cancelled inside the decision
        let transform: BodyTransform
        do {
            transform = try await bodyTransform(for: response, offset: offset)
            if file == nil { try await openDestination(for: response, whole: final.completeBody != nil) }
        } catch {
            return .failed(error, reusable: false)
        }
        guard let file else { return finish(reusable: false, publishing: false) }  // skipped (-nc)
        let expected = state.resume?.expectedLength ?? response.expectedContentLength.map { $0 + offset }
        // Only a loader that can fetch ranges splits.
        let fetcher = resumable ? loader?.segmentFetcher : nil
        let segments = fetcher == nil ? nil : SegmentedDownload.plan(for: response, offset: offset, state: state, transform: transform,
                                                                      file: file, configuration: session.configuration)
        do {
            // A segmented transfer keeps what lies beyond `offset`: ranges already written, or
            // bytes its workers will overwrite. One connection continues from `offset` only.
            if segments == nil || (offset == 0 && state.resume?.segments?.isEmpty != false) { try cutPart(file, to: offset) }
            freshFile = false
        } catch {
            return .failed(error, reusable: false)
        }
        if offset > 0 { task.emit(.resumed(atOffset: offset, expectedTotalBytes: expected)) }
        if let segments, let fetcher {
            if let failure = await SegmentedDownload(transfer: self, fetcher: fetcher, plan: segments, response: response).run(first: final) {
                return failure
            }
            return finish(reusable: false)
        }
        if isError { task.emit(.warning("saving the body of the error response \(response.statusCode)")) }

        let outcome: BodyOutcome
        if let body = final.completeBody {
            outcome = writeComplete(body, transform: transform, to: file, offset: offset, expected: expected)
        } else {
            outcome = await stream(final.body, transform: transform, to: file, offset: offset, expected: expected)
        }
        switch outcome {
        case .failed(let error):
            return .failed(error, reusable: false)
        case .ended(let decoded):
            if !transform.decoding.isEmpty { task.findings.withLockedValue { $0.decodedBytes = decoded } }
            if let reason = task.cancellation { return .failed(reason, reusable: false) }
            let done = finish(reusable: final.framing.keepAlive)
            if isError, case .done(let reusable) = done { return .failed(statusError(response), reusable: reusable) }
            return done
        }
    }

    private enum BodyOutcome {
        case ended(decoded: Int64)
        case failed(SessionError)
    }

    /// Streams the body inside the connection's pipeline into the file; progress comes back as
    /// events (a handful a second).
    private func stream(_ source: any BodySource, transform: BodyTransform, to file: OpenDownload,
                        offset: Int64, expected: Int64?) async -> BodyOutcome {
        var failure: SessionError?
        var written: Int64 = 0
        var decoded: Int64 = 0
        var ended = false
        await source.streamBody(.file(fd: file.fileDescriptor, progressInterval: .milliseconds(100), transform: transform)) { event in
            switch event {
            case .progress(let count):
                let delta = count - written
                written = count
                progressed(offset + written, delta: delta, expected: expected, file: file)
            case .end(let end):
                written = end.bytes
                decoded = end.decoded
                ended = true
            case .failed(let error):
                failure = error
            case .data:
                break
            }
        }
        if transform.decoding.isEmpty { state.resume?.bytesOnDisk = offset + written }
        if let failure { return .failed(failure) }
        guard ended else { return .failed(task.cancellation ?? SessionError.connectionClosed.with("body ended unexpectedly")) }
        return .ended(decoded: decoded)
    }

    /// A body that arrived whole with its head: written from here, no trip to the event loop.
    private func writeComplete(_ parts: [ByteBuffer], transform: BodyTransform, to file: OpenDownload,
                               offset: Int64, expected: Int64?) -> BodyOutcome {
        var output = BodyOutput(transform)
        let fd = file.fileDescriptor
        do {
            var landed = 0
            for part in parts {
                try output.process(part) { bytes throws(SessionError) in try FileWriter.writeAll(bytes, to: fd, landed: &landed) }
            }
            try output.finish { bytes throws(SessionError) in try FileWriter.writeAll(bytes, to: fd, landed: &landed) }
        } catch {
            return .failed(error)
        }
        progressed(offset + output.received, delta: output.received, expected: expected, file: file, checkpoint: false)
        return .ended(decoded: output.delivered)
    }

    /// Body bytes up to `total` are in the file: counts, the delegate, and a checkpoint when due.
    func progressed(_ total: Int64, delta: Int64, expected: Int64?, file: OpenDownload, checkpoint: Bool = true) {
        task.status.withLockedValue { $0.bytesReceived = total }
        let due = state.progressed(to: total, now: .now(), checkpoints: checkpoint && checkpoints)
        task.findings.withLockedValue {
            $0.held = state.resume.flatMap { located($0, file) }
            $0.heldDescriptor = file.fileDescriptor
        }
        if let due, let paths = file.paths { save(due, at: paths, fd: file.fileDescriptor) }
        let event = TaskEvent.wroteData(bytesWritten: delta, totalBytesWritten: total, totalBytesExpectedToWrite: expected)
        if case .unnamed = file {
            heldProgress = event
        } else {
            task.emit(event)
        }
    }

    /// Syncs the part file, then saves `data` as its state: the state never claims bytes that a
    /// crash could still lose.
    func save(_ data: ResumeData, at paths: DownloadPaths, fd: Int32) {
        guard fdatasync(fd) == 0 else { return }
        let located = data.located(at: paths)
        if (try? ResumeStore.save(located, at: paths)) != nil { state.saved(located) }
    }

    /// Cuts the part (or a file in place) to `offset` bytes and positions it there. The state
    /// beside a part is rewritten first when it claims bytes at or after `offset`
    /// (``DownloadState/cut(to:)``): kill -9 between any two steps leaves a state that claims
    /// only bytes the part still holds.
    func cutPart(_ file: OpenDownload, to offset: Int64) throws(SessionError) {
        if let claim = state.cut(to: offset), let paths = file.paths {
            let located = claim.located(at: paths)
            if checkpoints, (try? ResumeStore.save(located, at: paths, durable: false)) != nil {
                state.saved(located)
            } else {
                ResumeStore.remove(at: paths)
                state.saved(nil)
            }
        }
        // A file this attempt just created is empty and at 0: nothing to cut (two system
        // calls saved per small file).
        if offset == 0 && freshFile { return }
        try file.position(at: offset)
    }

    /// Decides what this attempt decodes and bounds. Only a body written from byte 0 is
    /// decoded: continued bytes are appended as sent, like the bytes before them.
    private func bodyTransform(for response: Response, offset: Int64) async throws(SessionError) -> BodyTransform {
        var transform = BodyTransform()
        if offset == 0, let decoding = task.findings.withLockedValue({ $0.decoding }) {
            transform.decoding = decoding.contentCodings
            if decoding.payloadIsGzip {
                if state.decodesPayload == nil && file == nil {
                    state.decodesPayload = await task.decide {
                        await $0.downloadTask(self.task, shouldDecodePayloadOfMIMEType: response.mimeType)
                    } ?? false
                }
                if state.decodesPayload == true { transform.decoding = [.gzip] }
            }
        }
        state.chooseDecoding(transform.decoding)
        let codings = transform.decoding
        task.findings.withLockedValue {
            $0.decodedCodings = codings
            $0.decodedBytes = nil
        }
        try transform.bound(by: session.configuration.maximumBodyBytes, announced: response.expectedContentLength, after: offset)
        return transform
    }

    /// The name the body would be saved under, for judging whether it is a `.gz` file.
    private func destinationNameHint(for response: Response) -> String {
        if let file { return (DownloadPaths(finalPath: file.visiblePath)?.name ?? "") }
        switch task.destination.target {
        case .directory:
            return suggestedName(for: response)
        case .file(let path): return DownloadPaths(finalPath: path)?.name ?? ""
        case .standardOutput: return response.url.lastPathComponent
        }
    }

    /// What `response` suggests as the file's name under a directory destination.
    func suggestedName(for response: Response) -> String {
        if let name = suggestedNameOfResponse { return name }
        let name = response.suggestedFilename(for: task.destination)
        suggestedNameOfResponse = name
        return name
    }

    // MARK: the end

    /// Publishes the complete file, forgets its resume state, reports it.
    private func finish(reusable: Bool, publishing: Bool = true) -> Consumed {
        guard publishing, let file else { return .done(reusable: reusable) }
        // The time goes on the open file before it gets its name: no path to look up again,
        // and the file never shows under its name without it.
        if task.destination.setsModificationDate, file.isNewFile { Self.setModificationDate(of: file.fileDescriptor, from: task.response) }
        let location: String
        do {
            location = try file.publish()
        } catch {
            heldProgress = nil
            // An unnamed file that could not be linked leaves nothing behind to point to.
            if case .unnamed = file {} else { task.findings.withLockedValue { $0.partialFile = file.visiblePath } }
            return .failed(error, reusable: reusable)
        }
        if let paths = file.paths { ResumeStore.remove(at: paths) }
        if case .unnamed = file {
            announceDestination(location)
            if let heldProgress { task.emit(heldProgress) }
            heldProgress = nil
        }
        self.file = nil
        task.findings.withLockedValue {
            $0.location = location
            $0.partialFile = nil
            $0.held = nil
            $0.heldDescriptor = nil
        }
        // A file URL costs about 3,500 instructions to make: only when someone hears it.
        if task.wants(.finishedDownloading) { task.emit(.finishedDownloading(to: fileURL(location))) }
        return .done(reusable: reusable)
    }

    /// Announces `path` as the destination (`destinationCreated`).
    func announceDestination(_ path: String) {
        guard task.wants(.destinationCreated) else { return }
        let url = fileURL(path)
        announcedDestination = (path, url)
        task.emit(.destinationCreated(url))
    }

    /// `path` as a file URL; the announced destination's own when it is that path.
    private func fileURL(_ path: String) -> URL {
        if let announced = announcedDestination, announced.path == path { return announced.url }
        return URL(filePath: path)
    }

    /// At the end of a failed transfer: close the file, keep the `.part` with its state, hand
    /// out resume data when the bytes can be continued.
    private func finalize(_ error: SessionError?) -> SessionError? {
        guard var error else { return nil }
        heldProgress = nil  // an unnamed file that is not published announces nothing
        guard let file else { return error }
        self.file = nil
        switch file {
        case .part(let part):
            // Corrupt encoded data, or a file over the size limit: nothing worth keeping.
            // The answer to a request with a body cannot be continued either.
            let worthless = error == SessionError.decodingFailed || error == SessionError.tooLarge || !resumable
            let kept = state.resume.map { data in data.segments.map { $0.reduce(0) { $0 + $1.count } } ?? data.bytesOnDisk } ?? 0
            if !worthless, kept > 0, let resume = state.resume, let paths = part.paths {
                let data = resume.located(at: paths)
                if checkpoints { save(data, at: paths, fd: part.fileDescriptor) } else { fdatasync(part.fileDescriptor) }
                part.abandon()
                task.findings.withLockedValue { $0.partialFile = part.partPath }
                error.resumeData = data
            } else {
                part.abandon()
                unlink(part.partPath)  // nothing worth resuming
                if let paths = part.paths { ResumeStore.remove(at: paths) }
            }
        case .unnamed, .inPlace, .standardOutput:
            // An unnamed file's bytes go with it: its body arrived whole, nothing to continue.
            file.abandon()
        }
        return error
    }

    /// The failure for an answer with an error status: it names the status and carries the
    /// response.
    private func statusError(_ response: Response) -> SessionError {
        if response.statusCode == 401 || response.statusCode == 407 {
            let failure = task.status.withLockedValue { $0.authenticationFailure }
            let who = response.statusCode == 407 ? "the proxy" : "the server"
            let reason = failure?.description ?? "\(who) asks for authentication (\(response.statusCode))"
            return SessionError.authenticationFailed.with(DisplayText.sanitize(reason)).responding(response)
        }
        return SessionError.httpStatus.with("server answered \(response.statusCode) \(DisplayText.sanitize(response.reasonPhrase))")
            .responding(response)
    }

    /// `-c` on the user's own file, and the answer cannot continue it: the file is left alone.
    private func refusal(_ reason: String) -> SessionError {
        let name = file?.visiblePath ?? ""
        return SessionError.cannotContinue.with("\(reason); '\(name)' is left as it is (remove it to download again)")
    }

    /// `-c` on the user's own file of `held` bytes, answered with the whole file (the remote
    /// length given) or with 416 (nil: nothing after the local bytes). A remote file no longer
    /// than the local one leaves it as it is, with a warning saying why, and succeeds (wget's
    /// Test-c-shorter); a longer one cannot be continued, and the local file is not destroyed
    /// either.
    private func keepLocalFile(_ final: FinalResponse, held: Int64, remoteLength: Int64?) async -> Consumed {
        let reusable = await ExchangeRunner.skipBody(of: final)
        let name = file?.visiblePath ?? ""
        let why: String
        if let remoteLength {
            guard remoteLength <= held else {
                return .failed(refusal("the server does not support continuing this download"), reusable: reusable)
            }
            why = "the local file is as long as the remote one or longer (\(held) ≥ \(remoteLength) bytes)"
        } else {
            why = "the server has nothing after the local file's \(held) bytes (416)"
        }
        task.emit(.warning("\(why); '\(name)' is left as it is"))
        file?.abandon()
        task.findings.withLockedValue { $0.location = file?.visiblePath }
        file = nil
        return .done(reusable: reusable)
    }

    /// `data` naming the part and final paths of `file`.
    func located(_ data: ResumeData, _ file: OpenDownload) -> ResumeData? {
        file.paths.map { data.located(at: $0) }
    }
}

extension ResumeData {
    /// The same state, naming the part and final paths of `paths`.
    func located(at paths: DownloadPaths) -> ResumeData {
        var data = self
        data.partPath = paths.partPath
        data.finalPath = paths.finalPath
        return data
    }
}

extension DownloadTransfer {
    /// Gives a published file the answer's `Last-Modified` as its modification time (wget's
    /// default, curl's `--remote-time`); a missing or unreadable date leaves the time alone.
    static func setModificationDate(of fd: Int32, from response: Response?) {
        guard let header = response?.headers["Last-Modified"], let date = HTTPDate.parse(header) else { return }
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        withUnsafeTemporaryAllocation(of: timespec.self, capacity: 2) { times in
            times.initialize(repeating: timespec(tv_sec: seconds, tv_nsec: 0))
            _ = futimens(fd, times.baseAddress)
        }
    }
}
