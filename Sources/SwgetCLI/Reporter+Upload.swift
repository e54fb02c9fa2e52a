#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwgetKit

/// How far a request body got, for the upload bar and JSON `upload` events.
struct UploadProgress {
    var start: Double
    var sent: Int64 = 0
    var expected: Int64?
    var rate: RateMeter
    var throttle = ProgressThrottle()

    init(start: Double) {
        self.start = start
        rate = RateMeter(start: start)
    }
}

/// The upload side of the reporter: while a request body goes out, the task's bar shows
/// `↑ NAME` with the bytes sent, rate and ETA (the download bar of the answer takes its place
/// once the answer is saved); JSON progress gets `upload` events, at most one a second plus
/// one when the whole body went. Dots and quiet runs show nothing of it (as wget).
extension Reporter {
    func sent(_ task: SessionTask, bytes: Int64, total: Int64, expected: Int64?) {
        let now = Terminal.now()
        let (progress, emitJSON) = uploads.withLock { all -> (UploadProgress, Bool) in
            // The first report of a send counts from zero: a body sent again (a 307/308, a
            // challenge, a retry) starts a new bar.
            var progress = all[task.taskIdentifier].flatMap { total > bytes ? $0 : nil } ?? UploadProgress(start: now)
            progress.sent = total
            progress.expected = expected
            progress.rate.add(bytes: bytes, at: now)
            let done = expected.map { total >= $0 } ?? false
            let emit = options.indicator == .json && (progress.throttle.shouldEmit(at: now) || done)
            all[task.taskIdentifier] = progress
            return (progress, emit)
        }
        switch options.indicator {
        case .bar:
            let name = Self.uploadName(task.currentRequest.url, ascii: options.ascii)
            block?.update(task.taskIdentifier, at: now) { line in
                if !line.isUpload || line.name != name { line = BarBlock.Line(name: name, start: progress.start, isUpload: true) }
                line.received = progress.sent
                line.expected = progress.expected
                line.rate = progress.rate.bytesPerSecond
                line.start = progress.start
            }
        case .json:
            if emitJSON {
                // The original URL, as in the download's events: scripts match events by it.
                emit(.upload(url: URLDisplay.maskedString(task.originalRequest.url.absoluteString), sent: progress.sent,
                             expected: progress.expected, rate: progress.rate.bytesPerSecond))
            }
        case .dot, .none:
            break
        }
    }

    /// `↑ NAME`: the last path segment of the URL the body goes to (else its host).
    static func uploadName(_ url: URL, ascii: Bool) -> String {
        let last = url.lastPathComponent
        let name = last.isEmpty || last == "/" ? (url.host() ?? "-") : last
        return (ascii ? "^ " : "\u{2191} ") + DisplayText.sanitize(name)
    }
}
