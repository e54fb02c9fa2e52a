#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A loader of one kind of URL, the counterpart of NSURLProtocol in Swift concurrency terms: a
/// session asks the handlers of its registry, in order, which one loads a request, then calls
/// ``startLoading(_:client:)`` once per attempt.
///
/// Everything a download task does — the `.part` file, resume state, progress, retries,
/// decoding — works for any handler. To be resumable, a handler honours the `Range:
/// bytes=N-` field of the request it is given (answer `206` with a `Content-Range`, or `200`
/// with the whole resource) and reports validators (`ETag` or `Last-Modified`, and
/// `Content-Length`) in its response's header fields; an answer that does not continue the
/// stored bytes makes the task start over, so a handler that ignores ranges is still correct.
///
/// http and https, ftp, file and data are handlers of the same registry
/// (``SessionConfiguration/protocolHandlers`` are consulted before them).
public protocol ProtocolHandler: Sendable {
    /// Whether this handler loads `request` (usually decided by its URL's scheme).
    func canHandle(_ request: Request) -> Bool
    /// The request as this handler will load it. Default: unchanged.
    func canonicalRequest(for request: Request) -> Request
    /// Loads `request`, reporting to `client`: one response, then its body in pieces, then the
    /// end (or a failure, or a redirect). Returns when loading is over; stops early when
    /// ``ProtocolClient/isCancelled`` becomes true.
    func startLoading(_ request: Request, client: ProtocolClient) async
}

extension ProtocolHandler {
    public func canonicalRequest(for request: Request) -> Request { request }
}

/// What a ``ProtocolHandler`` reports to: the task it loads for (NSURLProtocolClient).
///
/// Calls are made from the handler's own Swift task, in order: ``didReceive(_:)`` once, then
/// ``didLoad(_:)`` any number of times, then ``didFinishLoading()``; or ``didFail(with:)`` or
/// ``wasRedirected(to:by:)`` at any point instead. ``didLoad(_:)`` returns once the task has taken
/// the piece (backpressure: a handler reading a file never runs ahead of the disk).
public final class ProtocolClient: Sendable {
    let bridge: HandlerBridge
    /// The task this load is for: built-in handlers reach their session (configuration, TLS,
    /// connection pools, the delegate's trust challenge) through it.
    let task: SessionTask?

    init(bridge: HandlerBridge, task: SessionTask? = nil) {
        self.bridge = bridge
        self.task = task
    }

    /// True once the task no longer wants anything from this load (cancelled, or it has what
    /// it needs); a handler stops reading and returns.
    public var isCancelled: Bool { bridge.isCancelled }

    /// The response (status and header fields, as an HTTP-like head). Returns false when the
    /// task does not want the body: return from loading then.
    @discardableResult
    public func didReceive(_ response: Response) async -> Bool {
        await bridge.response(response)
    }

    /// The response, with a body that streams from `body` (a channel pipeline writing straight
    /// into the task's sink, as HTTP's does) instead of through ``didLoad(_:)``. The handler
    /// still ends the load with ``didFinishLoading()`` or ``didFail(with:)`` once `body` has ended.
    func didReceive(_ response: Response, body: any BodySource) async -> Bool {
        await bridge.response(response, body: body)
    }

    /// Runs `handler` once if the task stops wanting this load (cancelled, or done with the
    /// response without reading its body); at once when that already happened.
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        bridge.onCancel(handler)
    }

    /// A piece of the body, in order. Returns when the task has written or delivered it.
    public func didLoad(_ data: Data) async {
        await bridge.piece(Array(data))
    }

    /// A piece of the body as bytes, in order (no copy into `Data`).
    public func didLoad(bytes: [UInt8]) async {
        await bridge.piece(bytes)
    }

    /// The body is complete.
    public func didFinishLoading() {
        bridge.end(nil)
    }

    /// Loading failed (before or during the body).
    public func didFail(with error: SessionError) {
        bridge.end(error)
    }

    /// The resource is elsewhere: the task follows (asking its delegate first) when the new
    /// request's handler is this one and the redirect rules allow it.
    public func wasRedirected(to request: Request, by response: Response) {
        bridge.redirect(request, response: response)
    }
}
