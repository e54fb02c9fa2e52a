#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything a task tells about its progress, as one value type: the notifications of
/// NSURLSession's task, data and download delegates, in an enum the compiler checks.
///
/// Read them from ``SessionTask/events`` (an `AsyncSequence`), or in
/// ``SessionDelegate/task(_:didEmit:)`` for every task of a session.
///
/// ## Order for one task
/// 0. `sentBodyData` — while a request body goes out (the first chunk at once, then at most
///    about ten a second, plus one with the final total), for every request that carries one:
///    again after each redirect that keeps the body (307/308), each challenge answered and each
///    retry, counting from zero.
/// 1. `redirected` — once per redirect followed.
/// 2. `response` — once per final response (again after a retry or a restart).
/// 3. The body:
///    - data tasks: `data` zero or more times, in body order;
///    - download tasks: `destinationCreated` once per task (also for a task made from resume
///      data, naming the part it continues), then `resumed` when bytes are kept from before,
///      or `restarted` when stored bytes were dropped and the body starts from zero, then
///      `wroteData` zero or more times (at most about ten a second, plus one with the final
///      total), then `finishedDownloading` once on success.
/// 4. `willRetry` before each new attempt after a transient failure, then 1–3 again.
/// 5. `completed` — exactly once, last.
///
/// `warning` and `debug` may come at any point before `completed`; `tlsEstablished` before the `redirected`
/// or `response` of a hop sent on a new https connection.
public enum TaskEvent: Sendable {
    /// Request body bytes went out (handed to the connection as it could take them, within
    /// about one chunk of what the socket took): `bytesSent` since the previous event,
    /// `totalBytesSent` of this request so far, and the body's length when known
    /// (NSURLSession's `didSendBodyData`). A body withheld after `Expect: 100-continue` sends
    /// none; a body sent again (a 307/308 redirect, a challenge, a retry) counts from zero.
    case sentBodyData(bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64?)
    /// A redirect was followed: `response` answered the previous hop, `request` is the next.
    case redirected(Response, to: Request)
    /// A new https connection completed its TLS handshake: what it negotiated and the server's
    /// certificate (once per new connection, not for a reused one).
    indirect case tlsEstablished(TLSConnectionInfo)
    /// The final response head of an attempt arrived. Progress counts from here.
    case response(Response)
    /// A piece of a data task's body (decoded), in order. Not sent for ``Session/data(for:)``,
    /// which collects the body.
    case data(Data)
    /// The download's file exists now: the `.part` beside the final name (or the file itself
    /// for destinations written in place, `-` for standard output), after unique naming. A body
    /// that arrived whole with its head goes to an unnamed file instead: this comes once that
    /// file is linked, naming the path it was published under, right before its `wroteData`
    /// and `finishedDownloading` (a failed write of such a body announces nothing).
    case destinationCreated(URL)
    /// The download continues bytes it already holds: `offset` bytes are kept; the file will
    /// be `expectedTotalBytes` long when known (`didResumeAtOffset:expectedTotalBytes:`).
    case resumed(atOffset: Int64, expectedTotalBytes: Int64?)
    /// Bytes held from before could not be continued (the file changed on the server, the
    /// server ignored the range): the download starts from zero.
    case restarted(reason: String)
    /// Body bytes were written: `bytesWritten` since the previous event, `totalBytesWritten`
    /// so far, and the announced length when known. For a decoded body the counts are bytes
    /// as sent (what `Content-Length` announces), not the size of the file.
    case wroteData(bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64?)
    /// An attempt failed with a transient `error`; attempt number `attempt` starts after
    /// `delay`, resuming from the bytes held.
    case willRetry(after: Duration, error: SessionError, attempt: Int)
    /// A new connection goes through an HTTP proxy's tunnel: the proxy's answer to CONNECT
    /// (for a `-S` display).
    case proxyTunnel(Response)
    /// Something worth a user's attention that does not stop the task (an https → http
    /// redirect, bytes after a complete body). The text is sanitised for a terminal.
    case warning(String)
    /// The download is complete and published under its final name (not a temporary file to
    /// move, unlike NSURLSession's `didFinishDownloadingTo`).
    case finishedDownloading(to: URL)
    /// Details for a debug log (connections opened and reused, request heads as sent); only
    /// when ``SessionConfiguration/emitsDebugEvents`` is on.
    indirect case debug(DebugEvent)
    /// The task ended: nil on success, or why it failed. Always the last event.
    case completed(SessionError?)
}

extension TaskEvent {
    /// A set of kinds of events, without their payloads: what a delegate hears
    /// (``SessionDelegate/eventKinds``).
    public struct Kinds: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let sentBodyData = Kinds(rawValue: 1 << 0)
        public static let redirected = Kinds(rawValue: 1 << 1)
        public static let tlsEstablished = Kinds(rawValue: 1 << 2)
        public static let response = Kinds(rawValue: 1 << 3)
        public static let data = Kinds(rawValue: 1 << 4)
        public static let destinationCreated = Kinds(rawValue: 1 << 5)
        public static let resumed = Kinds(rawValue: 1 << 6)
        public static let restarted = Kinds(rawValue: 1 << 7)
        public static let wroteData = Kinds(rawValue: 1 << 8)
        public static let willRetry = Kinds(rawValue: 1 << 9)
        public static let proxyTunnel = Kinds(rawValue: 1 << 10)
        public static let warning = Kinds(rawValue: 1 << 11)
        public static let finishedDownloading = Kinds(rawValue: 1 << 12)
        public static let debug = Kinds(rawValue: 1 << 13)
        public static let completed = Kinds(rawValue: 1 << 14)
        /// Every kind.
        public static let all = Kinds(rawValue: (1 << 15) - 1)
    }

    /// This event's kind.
    public var kind: Kinds {
        switch self {
        case .sentBodyData: .sentBodyData
        case .redirected: .redirected
        case .tlsEstablished: .tlsEstablished
        case .response: .response
        case .data: .data
        case .destinationCreated: .destinationCreated
        case .resumed: .resumed
        case .restarted: .restarted
        case .wroteData: .wroteData
        case .willRetry: .willRetry
        case .proxyTunnel: .proxyTunnel
        case .warning: .warning
        case .finishedDownloading: .finishedDownloading
        case .debug: .debug
        case .completed: .completed
        }
    }
}

/// What a debug log shows besides the other events (``TaskEvent/debug(_:)``). Request heads
/// hold credentials (`Authorization`, `Proxy-Authorization`, `Cookie`) as sent: mask them
/// before showing them to anyone.
public enum DebugEvent: Sendable {
    /// A new connection to `host`:`port` is up (through `proxy`, described without its
    /// password, when there is one); `remoteAddress` is the peer's address as a number.
    case connected(host: String, port: Int, remoteAddress: String?, proxy: String?)
    /// A request goes out on a connection kept open from an earlier request.
    case reusingConnection(host: String, port: Int)
    /// A request head as written: the request line's method, target and version, and the
    /// fields (the session's defaults included).
    case requestSent(method: String, target: String, version: String, headers: HeaderFields)
}
