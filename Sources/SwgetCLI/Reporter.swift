#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import SwgetKit

/// What the user sees: the session delegate of the command. It turns SwgetKit's events into
/// the chosen progress indicator (a bar block on a terminal, wget's dots, JSON lines, or
/// nothing), summary and message lines as verbose as asked, `-S` headers, and remembers HTTP
/// error statuses so the command can choose its exit code. The one place that writes to stderr.
final class Reporter: ImmediateEventDelegate {
    /// How much besides errors is printed.
    enum Verbosity: Sendable { case quiet, brief, normal }

    /// How a transfer's progress is shown.
    enum Indicator: Sendable, Equatable {
        case bar
        case dot(DotProgress.Style)
        case json
        case none
    }

    struct Options: Sendable {
        var verbosity: Verbosity = .normal
        var indicator: Indicator = .none
        var serverResponse = false
        var acceptErrorStatus = false
        /// The session undoes content codings (so -S says when it does).
        var decodesContent = true
        /// Store gzip payloads decompressed (`--gunzip`).
        var gunzip = false
        /// Print only ASCII (a non-UTF-8 locale).
        var ascii = false
        /// Files this run will fetch (the total line appears when more than one).
        var filesTotal = 1
        /// Refuse redirects to http:// (`--https-only`).
        var httpsOnly = false
        /// `-d`: connections and request heads too (see Reporter+Debug.swift).
        var debug = false
    }

    private struct Transfer {
        var url: String
        var name = ""
        var start: Double
        var received: Int64 = 0
        var expected: Int64?
        var rate: RateMeter
        var resumedFrom: Int64 = 0
        var status = 0
        var dots: DotProgress?
        var throttle = ProgressThrottle()

        init(url: String, start: Double) {
            self.url = url
            self.start = start
            rate = RateMeter(start: start)
        }
    }

    let options: Options
    private let transfers = Mutex<[Int: Transfer]>([:])
    /// Request bodies going out, by task (see Reporter+Upload.swift).
    let uploads = Mutex<[Int: UploadProgress]>([:])
    /// Tasks whose redirect to http:// `--https-only` refused (see Reporter+TLS.swift).
    let refusedRedirects = Mutex<Set<Int>>([])
    let block: BarBlock?

    init(options: Options) {
        self.options = options
        block = options.indicator == .bar ? BarBlock(filesTotal: options.filesTotal, ascii: options.ascii) : nil
    }

    // MARK: what the command reports

    /// A failed URL: one line `swget: URL: cause` (a JSON `error` event in JSON mode).
    func reportFailure(url: String, message: String, exitCode: Int32) {
        let url = URLDisplay.maskedString(url)
        if options.indicator == .json {
            emit(.error(url: url, message: message, exitCode: exitCode))
        } else {
            say("swget: \(shown(url)): \(DisplayText.sanitize(message))", always: true)
        }
    }

    /// A warning about the run itself (a file, an option): `swget: TEXT` unless `-q`.
    func warn(_ text: String) {
        if options.indicator == .json { return }
        say("swget: \(DisplayText.sanitize(text))")
    }

    /// A download skipped because its file exists (`-nc`).
    func reportSkipped(_ path: String) {
        block?.finish(-1, permanent: nil)
        say("File '\(DisplayText.sanitize(Terminal.relativePath(path)))' already there; not retrieving.", brief: true)
    }

    /// `-N`, `--time-cond`, `--etag-compare`: the condition says the server's file is not
    /// wanted (`reason` says why, "Server file no newer than local file" for `-N`).
    func reportNotModified(url: String, reason: String = "Server file no newer than local file") {
        block?.finish(-1, permanent: nil)
        say("\(reason) for \(shown(url)) -- not retrieving.", brief: true)
    }

    /// `--delete-after`: the file was removed once downloaded (wget's line).
    func reportDeleted(_ path: String) {
        say("Removing '\(DisplayText.sanitize(Terminal.relativePath(path)))'.", brief: true)
    }

    /// `--spider`: the URL answered with success.
    func reportExists(url: String, response: Response?) {
        guard let response else { return }
        let length = response.headers["Content-Length"].flatMap { Int64($0) }.map { ", \(Units.bytes($0))" } ?? ""
        say("\(shown(url)): remote file exists (\(response.statusCode) \(DisplayText.sanitize(response.reasonPhrase))\(length))", brief: true)
    }

    /// After several files: `Downloaded 9 of 10 files (1 failed): 12.3 MiB in 2.1s (5.8 MiB/s)`.
    func reportBatch(_ tally: Batch.Tally, files: Int, seconds: Double) {
        var notes: [String] = []
        if tally.failed > 0 { notes.append("\(tally.failed) failed") }
        if tally.skipped > 0 { notes.append("\(tally.skipped) skipped") }
        let counts = notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))"
        let elapsed = max(seconds, 1e-6)
        say("Downloaded \(tally.succeeded) of \(files) files\(counts): \(Units.bytes(tally.bytes)) in \(Units.duration(elapsed))"
            + " (\(Units.rate(Double(tally.bytes) / elapsed)))", brief: true)
    }

    /// `--progress=json`: the `summary` event that ends the run (`failedBefore`: URLs refused
    /// before any transfer, such as bad lines of an input file).
    func reportSummary(_ tally: Batch.Tally, files: Int, failedBefore: Int, seconds: Double, exitCode: Int32) {
        guard options.indicator == .json else { return }
        emit(.summary(files: files, succeeded: tally.succeeded, failed: tally.failed + failedBefore, skipped: tally.skipped,
                      bytes: tally.bytes, seconds: seconds, exitCode: exitCode))
    }

    /// The terminal was resized.
    func terminalResized() { block?.redraw() }

    // MARK: SessionDelegate (events at once: every case below only counts, draws or writes a line)

    func task(_ task: SessionTask, didEmitNow event: TaskEvent) {
        switch event {
        case .redirected(let response, let request):
            redirected(task, response: response, to: request)
        case .tlsEstablished(let info):
            if options.serverResponse && options.indicator != .json { say(Self.tlsText(info)) }
        case .response(let response):
            received(task, response: response)
        case .destinationCreated(let url):
            created(task, at: url)
        case .resumed(let offset, let expected):
            resumed(task, at: offset, expected: expected)
        case .restarted(let reason):
            if options.indicator != .json { say("swget: \(urlText(task)): \(DisplayText.sanitize(reason)); starting over") }
        case .wroteData(let bytes, let total, let expected):
            wrote(task, bytes: bytes, total: total, expected: expected)
        case .willRetry(let delay, let error, let attempt):
            willRetry(task, after: delay, error: error, attempt: attempt)
        case .warning(let text):
            if options.indicator != .json { say("swget: warning: \(urlText(task)): \(DisplayText.sanitize(text))") }
        case .finishedDownloading(let url):
            if let download = task as? DownloadTask { finished(download, at: url) }
        case .completed(let error):
            if error != nil {
                finishDots(task)
                block?.finish(task.taskIdentifier, permanent: nil)
            }
            // Nothing reads a task's progress after its end: a batch of a million URLs must
            // not keep a million entries.
            transfers.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) }
            uploads.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) }
        case .proxyTunnel(let response):
            if options.serverResponse && options.indicator != .json {
                say("Proxy tunnel:\n" + String(headerText(response).dropLast()))
            }
        case .debug(let event):
            debug(task, event)
        case .sentBodyData(let bytes, let total, let expected):
            sent(task, bytes: bytes, total: total, expected: expected)
        case .data:
            break
        }
    }

    func task(_ task: SessionTask, willPerformRedirection response: Response, newRequest: Request) async -> RedirectDecision {
        guard options.httpsOnly, newRequest.url.scheme?.lowercased() != "https" else { return .follow(newRequest) }
        refusedRedirects.withLock { _ = $0.insert(task.taskIdentifier) }
        return .refuse
    }

    func task(_ task: SessionTask, didReceive response: Response) async -> ResponseDisposition {
        refusedRedirects.withLock { $0.contains(task.taskIdentifier) } ? .cancel : .allow
    }

    func downloadTask(_ task: DownloadTask, shouldDecodePayloadOfMIMEType mimeType: String?) async -> Bool {
        options.gunzip
    }

    private func redirected(_ task: SessionTask, response: Response, to request: Request) {
        if options.indicator == .json {
            emit(.redirect(from: URLDisplay.maskedString(response.url.absoluteString),
                           to: URLDisplay.maskedString(request.url.absoluteString), status: response.statusCode))
        } else if options.serverResponse {
            say(headerText(response) + "Location: \(shown(request.url.absoluteString)) [following]")
        }
    }

    private func received(_ task: SessionTask, response: Response) {
        if options.serverResponse && options.indicator != .json {
            var text = headerText(response)
            // The library's own decision: what it undoes is what -S says it undoes.
            if let codings = (task as? DownloadTask)?.decoding?.contentCodings, !codings.isEmpty {
                text += "Decoding Content-Encoding: \(codings.map(\.rawValue).joined(separator: ", "))\n"
            }
            say(String(text.dropLast()))
        }
        let now = Terminal.now()
        let name = transfers.withLock { all -> String in
            // A new response (after a retry or a redirect) starts the progress again.
            var t = Transfer(url: URLDisplay.maskedString(task.originalRequest.url.absoluteString), start: now)
            t.name = all[task.taskIdentifier]?.name ?? ""
            t.expected = response.expectedContentLength
            t.status = response.statusCode
            all[task.taskIdentifier] = t
            return t.name
        }
        if !name.isEmpty {
            block?.update(task.taskIdentifier, at: now, force: true) { line in
                line = BarBlock.Line(name: name, expected: response.expectedContentLength, start: now)
            }
        }
        if options.indicator == .json && (response.isSuccess || options.acceptErrorStatus) {
            emit(.start(url: URLDisplay.maskedString(task.originalRequest.url.absoluteString), name: name.isEmpty ? nil : name,
                        expected: response.expectedContentLength))
        }
    }

    private func willRetry(_ task: SessionTask, after delay: Duration, error: SessionError, attempt: Int) {
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        let url = URLDisplay.maskedString((error.url ?? task.currentRequest.url).absoluteString)
        if options.indicator == .json {
            emit(.retry(url: url, attempt: attempt, delay: seconds, error: error.message))
            return
        }
        finishDots(task)
        say("swget: \(shown(url)): \(DisplayText.sanitize(error.message)); retrying in \(Units.duration(seconds))")
    }

    private func resumed(_ task: SessionTask, at fileOffset: Int64, expected expectedTotalBytes: Int64?) {
        let now = Terminal.now()
        transfers.withLock {
            $0[task.taskIdentifier]?.resumedFrom = fileOffset
            $0[task.taskIdentifier]?.received = fileOffset
        }
        switch options.indicator {
        case .json:
            emit(.resume(url: URLDisplay.maskedString(task.originalRequest.url.absoluteString), offset: fileOffset,
                         expected: expectedTotalBytes))
        case .bar:
            block?.update(task.taskIdentifier, at: now, force: true) { line in
                line.received = fileOffset
                line.resumedFrom = fileOffset
                line.expected = expectedTotalBytes
            }
            if options.serverResponse { say(resumeText(fileOffset, expectedTotalBytes)) }
        case .dot, .none:
            say(resumeText(fileOffset, expectedTotalBytes))
        }
    }

    /// `-q` without a bar or JSON: no line names a downloaded file.
    private var printsNoFileLines: Bool { options.indicator != .json && block == nil && options.verbosity == .quiet }

    /// How many transfers' progress is held now (for tests: none once every task ended).
    var heldTransfers: Int { transfers.withLock { $0.count } + uploads.withLock { $0.count } }
    /// Refused redirects not yet reported (ReporterBookkeepingTests).
    var heldRefusals: Int { refusedRedirects.withLock { $0.count } }

    /// `-q` with no progress indicator: nothing an event says is shown (lines, bars, dots, JSON),
    /// so the session neither makes nor delivers any (the decisions still come), and no
    /// transfer's progress is kept.
    var eventKinds: TaskEvent.Kinds { printsNoFileLines && options.indicator == .none ? [] : .all }

    private func created(_ task: SessionTask, at url: URL) {
        // The name shows on a bar and in the lines of a finished download (making it costs
        // about 2,000 instructions a file).
        guard !printsNoFileLines else { return }
        let path = url.path(percentEncoded: false)
        let name = path == "/dev/stdout" ? "-" : displayName(path)
        let now = Terminal.now()
        let t = transfers.withLock { all -> Transfer? in
            all[task.taskIdentifier]?.name = name
            return all[task.taskIdentifier]
        }
        block?.update(task.taskIdentifier, at: now, force: true) { line in
            line = BarBlock.Line(name: name, expected: t?.expected, start: t?.start ?? now)
        }
    }

    private func wrote(_ task: SessionTask, bytes bytesWritten: Int64, total totalBytesWritten: Int64, expected totalBytesExpectedToWrite: Int64?) {
        let now = Terminal.now()
        let (t, emitJSON, dotText) = transfers.withLock { all -> (Transfer?, Bool, String) in
            guard var t = all[task.taskIdentifier] else { return (nil, false, "") }
            t.received = totalBytesWritten
            t.expected = totalBytesExpectedToWrite
            t.rate.add(bytes: bytesWritten, at: now)
            let emit = options.indicator == .json && t.throttle.shouldEmit(at: now)
            var dotText = ""
            if case .dot(let style) = options.indicator {
                var dots = t.dots ?? DotProgress(style: style, expectedTotal: t.expected, resumedFrom: t.resumedFrom)
                dotText = dots.advance(to: t.received, at: now - t.start)  // seconds into this transfer
                t.dots = dots
            }
            all[task.taskIdentifier] = t
            return (t, emit, dotText)
        }
        guard let t else { return }
        switch options.indicator {
        case .bar:
            block?.update(task.taskIdentifier, at: now) { line in
                line.received = t.received
                line.expected = t.expected
                line.rate = t.rate.bytesPerSecond
            }
        case .dot:
            if !dotText.isEmpty { Terminal.write(dotText) }
        case .json:
            if emitJSON {
                emit(.progress(url: t.url, received: t.received, expected: t.expected, rate: t.rate.bytesPerSecond))
            }
        case .none:
            break
        }
    }

    private func finished(_ task: DownloadTask, at url: URL) {
        let now = Terminal.now()
        guard let t = transfers.withLock({ $0[task.taskIdentifier] }) else { return }
        if printsNoFileLines {
            finishDots(task)
            return  // -q: no line to build
        }
        let location = url.path(percentEncoded: false)
        let path = location == "/dev/stdout" ? "-" : Terminal.relativePath(location)
        let elapsed = max(now - t.start, 1e-6)
        let size = task.countOfBytesReceived
        if options.indicator == .json {
            emit(.finish(url: t.url, path: path, bytes: size, decodedBytes: task.countOfBytesDecoded,
                         seconds: elapsed, status: t.status))
            return
        }
        finishDots(task)
        let summary = summaryLine(task, path: path, transfer: t, size: size, elapsed: elapsed)
        if let block {
            // -q --show-progress keeps the finished bar instead of a summary (wget).
            let finalBar = ProgressLine(name: t.name, received: size, expected: size, bytesPerSecond: Double(size - t.resumedFrom) / elapsed,
                                        elapsed: elapsed, resumedFrom: t.resumedFrom, ascii: options.ascii).render(width: max(10, Terminal.width - 1))
            block.finish(task.taskIdentifier, permanent: options.verbosity == .quiet ? finalBar : summary, at: now)
        } else if options.verbosity != .quiet {
            Terminal.write(summary + "\n")
        }
    }

    /// A URL for a message line: password masked, controls escaped, an internationalised host
    /// in Unicode (in punycode where the locale is not UTF-8: the terminal could not show it).
    func shown(_ url: String) -> String {
        options.ascii ? DisplayText.sanitize(URLDisplay.maskedString(url)) : URLDisplay.forDisplay(url)
    }

    /// The task's URL for a message line: password masked, controls escaped.
    private func urlText(_ task: SessionTask) -> String {
        shown(task.originalRequest.url.absoluteString)
    }

    // MARK: helpers

    /// A permanent message line (above the bar block when there is one). Suppressed by `-q`
    /// (unless `always`) and by `-nv` (unless `brief` or `always`). JSON mode prints only JSON.
    func say(_ line: String, always: Bool = false, brief: Bool = false) {
        guard always || options.verbosity == .normal || (brief && options.verbosity == .brief) else { return }
        guard options.indicator != .json else { return }
        if let block { block.print(line + "\n") } else { Terminal.write(line + "\n") }
    }

    func emit(_ event: ProgressEvent) {
        Terminal.write(event.jsonLine())
    }

    /// Ends a partial line of dots, so whatever comes next starts on its own line.
    private func finishDots(_ task: SessionTask) {
        guard case .dot = options.indicator else { return }
        let text = transfers.withLock { all -> String in
            guard let t = all[task.taskIdentifier], var dots = t.dots else { return "" }
            all[task.taskIdentifier]?.dots = nil
            return dots.finish(at: Terminal.now() - t.start)
        }
        if !text.isEmpty { Terminal.write(text) }
    }

    private func summaryLine(_ task: DownloadTask, path: String, transfer t: Transfer, size: Int64, elapsed: Double) -> String {
        let fresh = size - t.resumedFrom  // the rate counts only bytes fetched in this run
        let where_ = path == "-" ? "written to stdout" : "saved"
        let resumed = t.resumedFrom > 0 ? ", \(Units.bytes(t.resumedFrom)) of it kept from before" : ""
        var sizes = Units.bytes(size)
        if let decoded = task.countOfBytesDecoded {
            let codings = task.decodedCodings.map(\.rawValue).joined(separator: "+")
            sizes = "\(Units.bytes(decoded)), \(Units.bytes(size)) as \(codings)"
        }
        let text = "'\(DisplayText.sanitize(path))' \(where_) [\(sizes)\(resumed)] in \(Units.duration(elapsed)) (\(Units.rate(Double(fresh) / elapsed)))"
        return options.ascii ? asciiOnly(text) : text
    }

    private func resumeText(_ offset: Int64, _ expected: Int64?) -> String {
        "Continuing at \(Units.bytes(offset))" + (expected.map { " of \(Units.bytes($0))" } ?? "")
    }

    /// `-S`: the head as received, every name and value sanitised for the terminal.
    private func headerText(_ response: Response) -> String {
        var text = "  \(response.httpVersion) \(response.statusCode) \(DisplayText.sanitize(response.reasonPhrase))\n"
        for field in response.headers { text += "  \(DisplayText.sanitize(field.name)): \(DisplayText.sanitize(field.value))\n" }
        return text
    }

    private func displayName(_ path: String) -> String {
        // Strip the .part suffix and directories: the bar shows the name the file will have.
        var name = path.hasSuffix(".part") ? String(path.dropLast(5)) : path
        if let slash = name.lastIndex(ofByte: UInt8(ascii: "/")) { name = String(name[name.utf8.index(after: slash)...]) }
        return DisplayText.sanitize(name)
    }
}

/// A smoothed transfer rate: an exponentially weighted average over roughly the last few
/// seconds, so the number does not jump on every redraw.
struct RateMeter {
    private var last: Double?
    private(set) var bytesPerSecond: Double = 0

    init(start: Double? = nil) { last = start }

    mutating func add(bytes: Int64, at time: Double) {
        defer { last = time }
        guard let last, time > last else { return }
        let instant = Double(bytes) / (time - last)
        let weight = min(1, (time - last) / 2.0)
        bytesPerSecond = bytesPerSecond == 0 ? instant : bytesPerSecond + weight * (instant - bytesPerSecond)
    }
}

/// The `--progress` value.
enum ProgressChoice: Equatable, Sendable {
    /// No `--progress`: a bar on a terminal, nothing otherwise.
    case automatic
    case bar(force: Bool)
    case dot(DotProgress.Style)
    case json
    case none

    init?(_ text: String) {
        let parts = text.lowercased().split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        switch (parts.first ?? "", parts.count > 1 ? parts[1] : nil) {
        case ("bar", nil): self = .bar(force: false)
        case ("bar", "force"), ("bar", "force:noscroll"), ("bar", "noscroll"): self = .bar(force: parts[1].contains("force"))
        case ("dot", nil): self = .dot(.default)
        case ("dot", let style?):
            guard let parsed = DotProgress.Style(rawValue: style) else { return nil }
            self = .dot(parsed)
        case ("json", nil): self = .json
        case ("none", nil): self = .none
        default: return nil
        }
    }
}
