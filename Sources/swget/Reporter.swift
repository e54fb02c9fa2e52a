import Synchronization
import SwgetKit

/// What the user sees: the session delegate of the command. It turns SwgetKit's events into a
/// progress bar on a terminal, a one-line summary otherwise, `-S` headers, and remembers
/// HTTP error statuses so the command can choose its exit code.
final class Reporter: SessionDelegate {
    enum Mode { case quiet, bar, lines }

    struct Options {
        var mode: Mode
        var serverResponse: Bool
        var acceptErrorStatus: Bool = false
        /// The session undoes content codings (so -S says when it does).
        var decodesContent = true
        /// Store gzip payloads decompressed (`--gunzip`).
        var gunzip = false
    }

    private struct Transfer {
        var name = ""
        var start: Double
        var received: Int64 = 0
        var expected: Int64?
        var rate: RateMeter

        init(start: Double = Terminal.now()) {
            self.start = start
            self.rate = RateMeter(start: start)
        }
        var drawn = false
        var httpFailure: Response?
        var resumedFrom: Int64 = 0
    }

    private let options: Options
    private let transfers = Mutex<[Int: Transfer]>([:])

    init(options: Options) { self.options = options }

    /// The response of a task that failed because the server answered with an error status.
    func httpFailure(of task: SessionTask) -> Response? {
        transfers.withLock { $0[task.taskIdentifier]?.httpFailure }
    }

    // MARK: SessionDelegate

    func task(_ task: SessionTask, willPerformRedirection response: Response, newRequest: Request) async -> RedirectDecision {
        if options.serverResponse { printHeaders(response) }
        if options.mode != .quiet && options.serverResponse {
            Terminal.write("Location: \(newRequest.url.absoluteString) [following]\n")
        }
        return .follow(newRequest)
    }

    func task(_ task: SessionTask, didReceive response: Response) async -> ResponseDisposition {
        if options.serverResponse {
            printHeaders(response)
            if options.decodesContent, let coding = response.headers["Content-Encoding"],
               let codings = ContentCoding.parse(coding), !codings.isEmpty, response.isSuccess || options.acceptErrorStatus {
                Terminal.write("Decoding Content-Encoding: \(coding)\n")
            }
        }
        transfers.withLock { all in
            var t = Transfer()
            t.name = all[task.taskIdentifier]?.name ?? ""
            t.expected = response.expectedContentLength
            if !response.isSuccess { t.httpFailure = response }
            all[task.taskIdentifier] = t
        }
        return response.isSuccess || options.acceptErrorStatus ? .allow : .cancel
    }

    func task(_ task: SessionTask, willRetryAfter delay: Duration, error: SessionError) async {
        guard options.mode != .quiet else { return }
        let drawn = transfers.withLock { all -> Bool in
            defer { all[task.taskIdentifier]?.drawn = false }
            return all[task.taskIdentifier]?.drawn ?? false
        }
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        Terminal.write((drawn ? "\r\u{1B}[K" : "")
            + "swget: \(task.currentRequest.url.absoluteString): \(error.message); retrying in \(Units.duration(seconds))\n")
    }

    func downloadTask(_ task: DownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64?) async {
        guard options.mode != .quiet else { return }
        let line = "Continuing at \(Units.bytes(fileOffset))" + (expectedTotalBytes.map { " of \(Units.bytes($0))" } ?? "") + "\n"
        if options.mode == .lines || options.serverResponse { Terminal.write(line) }
        transfers.withLock { $0[task.taskIdentifier]?.resumedFrom = fileOffset }
    }

    func downloadTask(_ task: DownloadTask, shouldDecodePayloadOfMIMEType mimeType: String?) async -> Bool {
        options.gunzip
    }

    func downloadTask(_ task: DownloadTask, didCreateDestinationAt path: String) async {
        let name = path == "-" ? "-" : displayName(path)
        transfers.withLock { $0[task.taskIdentifier]?.name = name }
    }

    func downloadTask(_ task: DownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64,
                      totalBytesExpectedToWrite: Int64?) async {
        guard options.mode == .bar else { return }
        let line: String? = transfers.withLock { all in
            guard var t = all[task.taskIdentifier] else { return nil }
            let now = Terminal.now()
            t.received = totalBytesWritten
            t.expected = totalBytesExpectedToWrite
            t.rate.add(bytes: bytesWritten, at: now)
            t.drawn = true
            all[task.taskIdentifier] = t
            return ProgressLine(name: t.name, received: t.received, expected: t.expected,
                                bytesPerSecond: t.rate.bytesPerSecond, elapsed: now - t.start).render(width: Terminal.width - 1)
        }
        if let line { Terminal.write("\r" + line + "\u{1B}[K") }
    }

    func downloadTask(_ task: DownloadTask, didFinishDownloadingTo path: String) async {
        guard options.mode != .quiet else { return }
        let (t, now) = transfers.withLock { ($0[task.taskIdentifier], Terminal.now()) }
        guard let t else { return }
        let elapsed = max(now - t.start, 1e-6)
        let size = task.countOfBytesReceived
        let fresh = size - t.resumedFrom  // the rate counts only bytes fetched in this run
        let where_ = path == "-" ? "written to stdout" : "saved"
        let resumed = t.resumedFrom > 0 ? ", \(Units.bytes(t.resumedFrom)) of it kept from before" : ""
        var sizes = Units.bytes(size)
        if let decoded = task.countOfBytesDecoded {
            let codings = task.decodedCodings.map(\.rawValue).joined(separator: "+")
            sizes = "\(Units.bytes(decoded)), \(Units.bytes(size)) as \(codings)"
        }
        let summary = "'\(path)' \(where_) [\(sizes)\(resumed)] in \(Units.duration(elapsed)) (\(Units.rate(Double(fresh) / elapsed)))"
        Terminal.write((t.drawn ? "\r\u{1B}[K" : "") + summary + "\n")
    }

    func task(_ task: SessionTask, didCompleteWithError error: SessionError?) async {
        let drawn = transfers.withLock { $0[task.taskIdentifier]?.drawn ?? false }
        if error != nil && drawn && options.mode == .bar { Terminal.write("\n") }
    }

    // MARK: helpers

    private func printHeaders(_ response: Response) {
        var text = "  \(response.httpVersion) \(response.statusCode) \(response.reasonPhrase)\n"
        for field in response.headers { text += "  \(field.name): \(field.value)\n" }
        Terminal.write(text)
    }

    private func displayName(_ path: String) -> String {
        // Strip the .part suffix and directories: the bar shows the name the file will have.
        var name = path.hasSuffix(".part") ? String(path.dropLast(5)) : path
        if let slash = name.lastIndex(of: "/") { name = String(name[name.index(after: slash)...]) }
        return name
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
