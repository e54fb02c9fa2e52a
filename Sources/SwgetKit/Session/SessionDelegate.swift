/// The life cycle of a task, as the seeds' NSURLSession delegates describe it, in Swift shape.
///
/// ## Contract
/// - **Context.** All calls for one task come from that task's own driver, one at a time and in
///   order; a call is awaited before the next one is made. Calls for different tasks may run
///   concurrently, so an implementation shared by several tasks must be `Sendable`-safe.
///   Nothing is called on a NIO event loop: implementations may block briefly, but a slow
///   implementation slows only its own task (body bytes keep flowing to the file meanwhile).
/// - **Order for one task.**
///   1. `task(_:didReceive:)` (``ServerTrustChallenge``) — zero or more times, once per new
///      https connection the task opens, before any response.
///   2. For each redirect followed: `task(_:willPerformRedirection:newRequest:)`, once per hop.
///   3. `task(_:didReceive:)` (``Response``) — once per final response. After a redirect that
///      was refused, the redirect response is the final response.
///   4. Body, by task kind:
///      - data tasks: `dataTask(_:didReceive:)` zero or more times, in body order;
///      - download tasks: `downloadTask(_:didCreateDestinationAt:)` once, then
///        `downloadTask(_:didResumeAtOffset:expectedTotalBytes:)` when bytes are continued, then
///        `downloadTask(_:didWriteData:totalBytesWritten:totalBytesExpectedToWrite:)` zero or
///        more times (at most about ten a second, plus one with the final total), then
///        `downloadTask(_:didFinishDownloadingTo:)` once on success.
///   5. `task(_:didCompleteWithError:)` — exactly once, last; `nil` on success.
/// - **Retries.** When the configuration's retry policy retries a transient failure,
///   `task(_:willRetryAfter:error:)` comes, then steps 2–4 again for the new attempt (a
///   download task resumes: step 4 starts with `didResumeAtOffset` instead of
///   `didCreateDestinationAt`). A 416 answer proving the file complete goes straight to
///   `didFinishDownloadingTo`.
/// - **Backpressure.** For data tasks, reading from the network pauses while more than 1 MiB of
///   delivered pieces are still being handled by `dataTask(_:didReceive:)`.
///
/// Every method has a default implementation, so a delegate implements only what it needs.
public protocol SessionDelegate: Sendable {
    /// A new https connection presented `challenge`. Default: `.performDefaultHandling`.
    func task(_ task: SessionTask, didReceive challenge: ServerTrustChallenge) async -> TrustDisposition

    /// The server redirected; `newRequest` is what the rules of RFC 9110 would send next.
    /// Return `.follow(newRequest)` (or a changed request) to continue, or `.refuse` to take
    /// `response` as the final answer. Default: follow.
    func task(_ task: SessionTask, willPerformRedirection response: Response, newRequest: Request) async -> RedirectDecision

    /// The final response head arrived. Progress starts (again) from zero here. Return
    /// `.cancel` to stop the task (it completes with ``SessionError/cancelled``). Default: allow.
    func task(_ task: SessionTask, didReceive response: Response) async -> ResponseDisposition

    /// A piece of a data task's body, in order.
    func dataTask(_ task: DataTask, didReceive data: [UInt8]) async

    /// The download continues bytes it already holds: `fileOffset` bytes are kept, the file
    /// will be `expectedTotalBytes` long when known. Comes after the response and before any
    /// `didWriteData` of this attempt (the seeds' `didResumeAtOffset:expectedTotalBytes:`).
    func downloadTask(_ task: DownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64?) async

    /// An attempt failed with a transient `error`; the task tries again after `delay`,
    /// resuming from the bytes it holds. Comes any number of times, before the next attempt.
    func task(_ task: SessionTask, willRetryAfter delay: Duration, error: SessionError) async

    /// The download's body is itself gzip data (`application/gzip`, or a `.gz` name served as
    /// octet-stream): return true to store it decompressed, under its name without `.gz`
    /// (`.tgz` becomes `.tar`). NSURLDownload's `download:shouldDecodeSourceDataOfMIMEType:`.
    /// Asked at most once per task, after the response and before the destination is created;
    /// never for bytes that continue a stored part. A decoded payload, like any decoded body,
    /// restarts from zero when interrupted (see ``ResumeData``). Default: false.
    func downloadTask(_ task: DownloadTask, shouldDecodePayloadOfMIMEType mimeType: String?) async -> Bool

    /// The download's file now exists at `path` (the `.part` beside the final name, or the
    /// file itself for stdout-like destinations) after unique naming.
    func downloadTask(_ task: DownloadTask, didCreateDestinationAt path: String) async

    /// Body bytes were written: `bytesWritten` since the last call, `totalBytesWritten` so far,
    /// and the announced length when known. Bytes count as received: for a decoded body that
    /// is the encoded size (what `Content-Length` announces), not the size of the file.
    func downloadTask(_ task: DownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64,
                      totalBytesExpectedToWrite: Int64?) async

    /// The download completed and its file was published under its final name `path`.
    func downloadTask(_ task: DownloadTask, didFinishDownloadingTo path: String) async

    /// The task ended: `nil` on success, or why it failed. Always the last call for a task.
    func task(_ task: SessionTask, didCompleteWithError error: SessionError?) async
}

/// A delegate's answer to a redirect.
public enum RedirectDecision: Sendable, Equatable {
    /// Send this request next (usually the proposed one).
    case follow(Request)
    /// Do not follow: the redirect response becomes the task's final response.
    case refuse
}

/// A delegate's answer to a final response head.
public enum ResponseDisposition: Sendable, Equatable {
    case allow
    case cancel
}

extension SessionDelegate {
    public func task(_ task: SessionTask, didReceive challenge: ServerTrustChallenge) async -> TrustDisposition {
        .performDefaultHandling
    }
    public func task(_ task: SessionTask, willPerformRedirection response: Response, newRequest: Request) async -> RedirectDecision {
        .follow(newRequest)
    }
    public func task(_ task: SessionTask, didReceive response: Response) async -> ResponseDisposition { .allow }
    public func dataTask(_ task: DataTask, didReceive data: [UInt8]) async {}
    public func downloadTask(_ task: DownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64?) async {}
    public func task(_ task: SessionTask, willRetryAfter delay: Duration, error: SessionError) async {}
    public func downloadTask(_ task: DownloadTask, didCreateDestinationAt path: String) async {}
    public func downloadTask(_ task: DownloadTask, shouldDecodePayloadOfMIMEType mimeType: String?) async -> Bool { false }
    public func downloadTask(_ task: DownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64,
                             totalBytesExpectedToWrite: Int64?) async {}
    public func downloadTask(_ task: DownloadTask, didFinishDownloadingTo path: String) async {}
    public func task(_ task: SessionTask, didCompleteWithError error: SessionError?) async {}
}
