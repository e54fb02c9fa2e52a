#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
#if canImport(Glibc)
import Glibc
#endif

/// A group of tasks sharing one configuration, one delegate and one pool of keep-alive
/// connections: the counterpart of NSURLSession.
///
/// ```swift
/// let session = Session(configuration: .default)
/// if let request = Request(string: "https://example.org/") {
///     let (body, response) = try await session.data(for: request)
///     let (file, _) = try await session.download(request, to: .directory("downloads"))
/// }
/// ```
public final class Session: Sendable {
    /// A copy of the configuration the session was created with.
    public let configuration: SessionConfiguration
    /// Receives every task's life cycle (see ``SessionDelegate`` for the contract).
    public let delegate: (any SessionDelegate)?
    /// How the delegate hears events (a task of their own, or at once), judged once.
    let listener: EventDelivery.Listener

    let pool: ConnectionPool
    /// Resume states found on disk, for background sessions.
    let resumeStates = ResumeStateIndex()
    /// The configuration's `maximumBytesPerSecond`, shared by all connections.
    let rateLimiter: RateLimiter?
    let eventLoopGroup: any EventLoopGroup
    /// Where the transfers run and the delegate is called.
    public let threading: SessionThreading
    /// With ``SessionThreading/eventLoop`` threading, one executor per event loop of the group;
    /// empty otherwise.
    let loopExecutors: [EventLoopExecutor]

    /// The first of ``taskExecutors``.
    public var taskExecutor: any TaskExecutor { loopExecutors.first ?? globalConcurrentExecutor }

    /// The executors the session's transfers run on. With ``SessionThreading/eventLoop``, one
    /// per event loop (one per core): a task runs on the loop it was created on, or else on the
    /// next in turn, and its connections go on that loop. Code that starts many tasks and awaits
    /// each one (as a batch does) saves a thread switch per task by starting each under one of
    /// them (`Task(executorPreference:)`), and must not block there. Otherwise Swift's global
    /// concurrent executor alone.
    public var taskExecutors: [any TaskExecutor] {
        loopExecutors.isEmpty ? [globalConcurrentExecutor] : loopExecutors
    }

    /// The loop executor a task created now runs on: the current thread's, when it is one of
    /// the session's loops, else the next in turn; nil (Swift's global executor) for
    /// ``SessionThreading/concurrent``.
    func executorForNewTask() -> EventLoopExecutor? {
        guard loopExecutors.count > 1 else { return loopExecutors.first }
        if let current = loopExecutors.first(where: { $0.eventLoop.inEventLoop }) { return current }
        // The group hands out its loops in turn.
        let next = eventLoopGroup.next()
        return loopExecutors.first { $0.eventLoop === next } ?? loopExecutors[0]
    }

    /// The configuration's protocol handlers, then the built-in ones.
    let protocols: ProtocolRegistry
    /// Logged-in FTP control connections between files.
    let ftpConnections: FTPConnectionPool

    private struct State {
        var nextTaskID = 1
        var tasks: [Int: SessionTask] = [:]
        var invalidated = false
        var tls: Result<SessionTLS, SessionError>?
    }

    private let state = NIOLockedValueBox(State())

    /// A session with a copy of `configuration` and `delegate` (nil: every decision takes its
    /// default), running its transfers as `threading` says. Connections run on NIO's shared
    /// `MultiThreadedEventLoopGroup.singleton`.
    public init(configuration: SessionConfiguration = .default, delegate: (any SessionDelegate)? = nil,
                threading: SessionThreading = .concurrent) {
        self.configuration = configuration
        self.delegate = delegate
        self.listener = EventDelivery.Listener(delegate)
        self.threading = threading
        self.eventLoopGroup = MultiThreadedEventLoopGroup.singleton
        self.loopExecutors = threading == .eventLoop ? eventLoopGroup.makeIterator().map(EventLoopExecutor.init) : []
        self.protocols = ProtocolRegistry(custom: configuration.protocolHandlers)
        self.rateLimiter = configuration.maximumBytesPerSecond.flatMap { $0 > 0 ? RateLimiter(bytesPerSecond: $0) : nil }
        self.pool = ConnectionPool(maxConnectionsPerHost: configuration.maxConnectionsPerHost,
                                   idleTimeout: configuration.idleConnectionTimeout.timeAmount)
        self.ftpConnections = FTPConnectionPool(idleTimeout: configuration.idleConnectionTimeout.timeAmount)
    }

    // MARK: creating tasks

    /// A suspended task delivering the body to `dataTask(_:didReceive:)`.
    public func dataTask(with request: Request) -> DataTask {
        register { DataTask(session: self, identifier: $0, request: request, collects: false) }
    }

    /// A suspended task streaming the body to `destination`.
    public func downloadTask(with request: Request, destination: DownloadDestination) -> DownloadTask {
        register { DownloadTask(session: self, identifier: $0, request: request, destination: destination) }
    }

    /// A suspended task continuing an interrupted download (NSURLSession's
    /// `downloadTaskWithResumeData:`): it asks for the missing bytes only, reports `resumed`
    /// before any new byte, and starts over if the server's file changed. `destination` says
    /// where the finished file goes; nil keeps the final path the data names. A different
    /// destination moves the part there first.
    public func downloadTask(withResumeData data: ResumeData, destination: DownloadDestination? = nil) -> DownloadTask {
        var request = Request(string: data.originalURL) ?? Request(url: URL(filePath: "/"))
        // The stored URL's password is masked: never send the mask. The user name stays, so a
        // challenge is answered from the credential storage, `.netrc` or the delegate.
        if request.url.password(percentEncoded: true) != nil,
           var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) {
            components.password = nil
            if let url = components.url { request.url = url }
        }
        let target = destination ?? .file(data.finalPath)
        return register { DownloadTask(session: self, identifier: $0, request: request, destination: target, resumeData: data) }
    }

    /// Fetches `request` and returns the whole body with the final response. Meant for small
    /// bodies; events still come except `data`. An error status is a response, not an error.
    /// Cancelling the calling Swift task cancels the transfer.
    @concurrent public func data(for request: Request) async throws(SessionError) -> (Data, Response) {
        let task = register { DataTask(session: self, identifier: $0, request: request, collects: true) }
        try await Self.await(task)
        guard let response = task.response else { throw SessionError.badResponse.with("no response") }
        return (Data(task.collectedBody), response)
    }

    /// Downloads `request` to `destination`; returns where the file was published and the final
    /// response (for a skipped existing file, its location). Cancelling the calling Swift task
    /// cancels the transfer; the error then carries resume data when the bytes can be continued.
    @concurrent public func download(_ request: Request, to destination: DownloadDestination) async throws(SessionError) -> (URL, Response) {
        let task = downloadTask(with: request, destination: destination)
        try await Self.await(task)
        guard let response = task.response else { throw SessionError.badResponse.with("no response") }
        return (task.location ?? task.skippedExistingFile ?? URL(filePath: "/dev/null"), response)
    }

    /// Runs `task` to its end, cancelling it when the calling Swift task is cancelled.
    static func await(_ task: SessionTask) async throws(SessionError) {
        let error = await withTaskCancellationHandler {
            await task.outcome()
        } onCancel: {
            task.cancel()
        }
        if let error { throw error }
    }

    func register<T: SessionTask>(_ make: (Int) -> T) -> T {
        let (task, invalidated) = state.withLockedValue { state -> (T, Bool) in
            let task = make(state.nextTaskID)
            state.nextTaskID += 1
            if !state.invalidated { state.tasks[task.taskIdentifier] = task }
            return (task, state.invalidated)
        }
        if invalidated { task.cancel(because: .sessionInvalidated) }
        return task
    }

    // MARK: invalidation

    /// Cancels every task and closes all connections; the session accepts no new tasks.
    public func invalidateAndCancel() {
        let tasks = state.withLockedValue { state -> [SessionTask] in
            state.invalidated = true
            return Array(state.tasks.values)
        }
        tasks.forEach { $0.cancel() }
        closeConnections()
    }

    /// Lets running tasks finish, refuses new ones, and closes connections once the last task
    /// has completed.
    public func finishTasksAndInvalidate() {
        let idle = state.withLockedValue { state -> Bool in
            state.invalidated = true
            return state.tasks.isEmpty
        }
        if idle { closeConnections() }
    }

    func taskDidComplete(_ task: SessionTask) {
        let shutDown = state.withLockedValue { state -> Bool in
            state.tasks[task.taskIdentifier] = nil
            return state.invalidated && state.tasks.isEmpty
        }
        if shutDown { closeConnections() }
    }

    /// Closes the keep-alive connections of every protocol.
    private func closeConnections() {
        pool.shutdown()
        ftpConnections.shutdown()
    }

    // MARK: connection settings

    func connectionSettings(for origin: Origin, task: SessionTask) throws(SessionError) -> HTTPConnection.Settings {
        var settings = HTTPConnection.Settings(
            connectTimeout: configuration.connectTimeout.timeAmount,
            idleReadTimeout: (task.originalRequest.timeoutInterval ?? configuration.idleReadTimeout).timeAmount,
            receiveBufferSize: configuration.receiveBufferSize,
            maxHeaderBytes: configuration.maxResponseHeaderBytes,
            tls: nil)
        settings.rateLimiter = rateLimiter
        settings.addressFamily = configuration.addressFamily
        settings.dnsTimeout = configuration.dnsTimeout?.timeAmount
        if let local = configuration.localAddress {
            do {
                settings.localAddress = try SocketAddress(ipAddress: local, port: 0)
            } catch {
                throw SessionError.connectFailed.with("cannot bind to '\(DisplayText.sanitize(local))': not an IP address")
            }
        }
        guard origin.scheme == "https" else { return settings }
        settings.tls = try tlsConnector(for: task)
        return settings
    }

    /// The session's TLS side, built once on first use.
    func sessionTLS() throws(SessionError) -> SessionTLS {
        let result = state.withLockedValue { state -> Result<SessionTLS, SessionError> in
            if let tls = state.tls { return tls }
            let made = Result { () throws(SessionError) in try SessionTLS(settings: configuration.tls, environment: Self.environment()) }
            state.tls = made
            return made
        }
        return try result.get()
    }

    private static func environment() -> [String: String] {
        var result: [String: String] = [:]
        if let value = getenv("SSL_CERT_FILE") { result["SSL_CERT_FILE"] = String(cString: value) }
        return result
    }
}

extension Duration {
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
