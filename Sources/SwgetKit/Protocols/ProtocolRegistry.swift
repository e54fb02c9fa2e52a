#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A session's protocol handlers in the order they are asked: the configuration's own
/// (``SessionConfiguration/protocolHandlers``), then the built-in ones. The first whose
/// ``ProtocolHandler/canHandle(_:)`` says yes loads the request.
struct ProtocolRegistry: Sendable {
    /// The handlers SwgetKit brings, asked after the configuration's.
    static let builtIn: [any ProtocolHandler] = [HTTPProtocolHandler(), FTPProtocolHandler(), FileProtocolHandler(),
                                                 DataProtocolHandler()]

    let handlers: [any ProtocolHandler]

    init(custom: [any ProtocolHandler]) {
        handlers = custom + Self.builtIn
    }

    /// True for SwgetKit's own ftp, file and data handlers (custom handlers decide for themselves).
    static func isBuiltIn(_ handler: any ProtocolHandler) -> Bool {
        handler is FTPProtocolHandler || handler is FileProtocolHandler || handler is DataProtocolHandler
    }

    /// The handler that loads `request`.
    func handler(for request: Request) -> (any ProtocolHandler)? {
        handlers.first { $0.canHandle(request) }
    }

    /// The loader of `task`'s attempts: the HTTP engine when the HTTP handler is the one chosen,
    /// else the chosen handler through ``HandlerLoader``.
    func loader(for task: SessionTask, startingAt url: URL? = nil) throws(SessionError) -> any Loader {
        guard let handler = handler(for: task.originalRequest) else {
            let scheme = task.originalRequest.url.scheme ?? ""
            throw SessionError.unsupportedURL.with("unsupported scheme '\(DisplayText.sanitize(scheme))'")
                .at(task.originalRequest.url)
        }
        if handler is HTTPProtocolHandler { return ExchangeRunner(task: task, startingAt: url) }
        let request = task.originalRequest
        let method = request.sentMethod
        if Self.isBuiltIn(handler), request.body != nil || (method != "GET" && method != "HEAD") {
            // ftp, file and data fetch only: a body or another method would be silently dropped.
            let scheme = DisplayText.sanitize(request.url.scheme ?? "")
            let what = request.body != nil ? "a request body" : "the method \(DisplayText.sanitize(request.method))"
            throw SessionError.unsupportedURL.with("\(scheme): URLs cannot send \(what); uploads go to http:// and https:// URLs")
                .at(request.url)
        }
        return HandlerLoader(task: task, handler: handler, startingAt: url)
    }
}

/// The built-in handler of `http` and `https`: the session's own HTTP/1.1 engine on SwiftNIO
/// (keep-alive pool, TLS with the trust challenge, redirects, body streamed to the file inside
/// the connection's pipeline). A session recognises it and runs its engine directly;
/// ``startLoading(_:client:)`` serves code that calls the handler on its own.
public struct HTTPProtocolHandler: ProtocolHandler {
    /// The handler; it has no settings of its own (a session runs its engine with the session's
    /// configuration; ``startLoading(_:client:)`` uses a default session).
    public init() {}

    /// True for `http` and `https` URLs (the scheme compared case-insensitively).
    public func canHandle(_ request: Request) -> Bool {
        request.url.hasScheme("http") || request.url.hasScheme("https")
    }

    /// Loads `request` with a default session's data task and reports it to `client`.
    public func startLoading(_ request: Request, client: ProtocolClient) async {
        let session = Session()
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        let events = task.events
        task.resume()
        for await event in events {
            if client.isCancelled { task.cancel() }
            switch event {
            case .response(let response):
                if await !client.didReceive(response) { task.cancel() }
            case .data(let data):
                await client.didLoad(data)
            case .completed(let error):
                if let error { client.didFail(with: error) } else { client.didFinishLoading() }
            default:
                break
            }
        }
    }
}
