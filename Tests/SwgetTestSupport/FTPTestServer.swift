import NIOCore
import NIOPosix
import Synchronization

/// A file the FTP test server serves.
public struct FTPTestFile: Sendable, Equatable {
    /// The content.
    public var bytes: [UInt8]
    /// The modification time as MDTM states it ("YYYYMMDDHHMMSS", UTC).
    public var modified: String

    /// A file modified at 2024-01-02 03:04:05 UTC unless told otherwise.
    public init(_ bytes: [UInt8], modified: String = "20240102030405") {
        self.bytes = bytes
        self.modified = modified
    }
}

/// Something to do wrong on a data connection that carries a file (RETR).
public enum FTPTestDataFault: Sendable, Equatable {
    /// Send the first `afterBytes` bytes (counted from the REST offset), close the data
    /// connection, then answer `reply` on the control connection (426 by default; "226 ..." to
    /// lie about it).
    case drop(afterBytes: Int, reply: String = "426 Connection closed; transfer aborted.")
    /// Send the first `afterBytes` bytes, then nothing, keeping both connections open until the
    /// client gives up or the server stops.
    case stall(afterBytes: Int)
}

/// What the FTP test server does; set before `start`, changed later with `update(_:)`.
public struct FTPTestServerOptions: Sendable {
    /// Files by absolute path ("/pub/file.bin"); directories are implied by the paths.
    public var files: [String: FTPTestFile] = [:]
    /// Extra (empty) directories, by absolute path.
    public var directories: Set<String> = []
    /// Versions of a file by session: control connection number `k` (from 0) sees
    /// `versions[path][min(k, count - 1)]`, overriding `files` (a file changed between attempts).
    public var versions: [String: [FTPTestFile]] = [:]
    /// Accounts: user → password.
    public var users: [String: String] = [:]
    /// Accept `anonymous` and `ftp` with any password.
    public var allowsAnonymous = true
    /// The greeting line(s), sent as they are (CRLF added): ["120 wait", "220 ready"] works.
    public var greeting = ["220 swget FTP test server ready."]
    /// Commands answered with a fixed reply instead of being served, by upper-case verb:
    /// `["EPSV": "500 Unknown command.", "REST": "502 REST not implemented."]`.
    public var refusals: [String: String] = [:]
    /// Paths answering `550` to every command that names them (RETR, SIZE, MDTM, MLST, CWD...).
    public var denied: Set<String> = []
    /// Faults for the RETR transfers of the whole server, in order: transfer `i` gets
    /// `dataFaults[i]`, later ones go well.
    public var dataFaults: [FTPTestDataFault] = []
    /// The address a PASV reply announces ("10.255.255.1" for a foreign one); the data
    /// listener is always on 127.0.0.1, so a client that trusts the reply fails.
    public var passiveAddress = "127.0.0.1"
    /// A slow link: RETR payloads go out `bytesPerWrite` bytes at a time, one write every
    /// `interval` (so a client can be interrupted mid-file). nil: as fast as possible.
    public var throttle: (bytesPerWrite: Int, interval: TimeAmount)?
    /// A hostile directory: LIST and MLSD of the directory at each key answer that many more
    /// file lines (`file0000000.bin`...) after its real entries.
    public var generatedListingLines: [String: Int] = [:]

    /// Options serving `files`, anonymous login allowed, no faults.
    public init(files: [String: FTPTestFile] = [:]) {
        self.files = files
    }
}

/// One command as the server received it.
public struct FTPTestCommand: Sendable, Equatable, CustomStringConvertible {
    /// The control connection (session) number, from 0.
    public let session: Int
    /// The upper-cased verb ("RETR").
    public let verb: String
    /// The argument as sent ("" when none).
    public let argument: String

    /// A command from its parts (for expectations).
    public init(session: Int, verb: String, argument: String) {
        self.session = session
        self.verb = verb
        self.argument = argument
    }

    public var description: String { argument.isEmpty ? verb : "\(verb) \(argument)" }
}

/// A scripted in-process FTP server (RFC 959 with EPSV/EPRT, SIZE, MDTM, REST, MLST, MLSD) for
/// fault tests, serving files from memory.
///
/// It listens on 127.0.0.1 on an ephemeral port; data listeners also bind 127.0.0.1, and active
/// mode connects only to loopback addresses. Each server runs on its own event-loop thread (as
/// ``TestServer`` does). Call `stop()` at the end of each test: it closes every connection,
/// stalled ones included.
public final class FTPTestServer: Sendable {
    /// The control port.
    public let port: Int
    /// "ftp://127.0.0.1:PORT".
    public let baseURL: String

    let core: Core
    private let listener: Channel
    private let group: MultiThreadedEventLoopGroup

    private init(port: Int, core: Core, listener: Channel, group: MultiThreadedEventLoopGroup) {
        self.port = port
        self.baseURL = "ftp://127.0.0.1:\(port)"
        self.core = core
        self.listener = listener
        self.group = group
    }

    /// Starts a server with `options`.
    public static func start(_ options: FTPTestServerOptions = FTPTestServerOptions()) async throws -> FTPTestServer {
        let core = Core(options: options)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                guard let session = core.accept(channel) else { return channel.close() }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(FTPTestSession(session: session, core: core))
                }
            }
        do {
            let listener = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
            return FTPTestServer(port: listener.localAddress?.port ?? 0, core: core, listener: listener, group: group)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// "ftp://127.0.0.1:PORT/path" for an absolute path ("/pub/f" or "pub/f").
    public func url(_ path: String) -> String {
        baseURL + (path.hasPrefix("/") ? path : "/" + path)
    }

    /// Every command received so far, in order.
    public var commands: [FTPTestCommand] {
        core.state.withLock { $0.commands }
    }

    /// The client addresses of every connection accepted so far, control and data, in order.
    public var peerAddresses: [String] {
        core.state.withLock { $0.peers }
    }

    /// Control connections accepted so far.
    public var sessionCount: Int {
        core.state.withLock { $0.sessions }
    }

    /// RETR transfers started so far (faulty ones included).
    public var transferCount: Int {
        core.state.withLock { $0.transfers }
    }

    /// Changes the options for commands received from now on (a file replaced, a fault removed).
    public func update(_ change: @Sendable (inout FTPTestServerOptions) -> Void) {
        core.state.withLock { change(&$0.options) }
    }

    /// Closes the listener and every open connection, and ends the server's thread. A second
    /// call does nothing.
    public func stop() async throws {
        guard let open = core.stop() else { return }
        for channel in [listener] + open {
            do {
                try await channel.close()
            } catch ChannelError.alreadyClosed {
                // Closed by the peer or by the session in the meantime.
            }
        }
        try await group.shutdownGracefully()
    }
}

extension FTPTestServer {
    /// What the sessions share: the options, the record, and the open channels.
    final class Core: Sendable {
        struct State {
            var options: FTPTestServerOptions
            var commands: [FTPTestCommand] = []
            var sessions = 0
            var transfers = 0
            var nextChannel = 0
            var open: [Int: Channel] = [:]
            var peers: [String] = []
            var stopped = false
        }

        let state: Mutex<State>

        init(options: FTPTestServerOptions) {
            state = Mutex(State(options: options))
        }

        /// Numbers a new control connection and tracks it; nil once the server stops.
        func accept(_ channel: Channel) -> Int? {
            let session: Int? = state.withLock { state in
                guard !state.stopped else { return nil }
                state.sessions += 1
                return state.sessions - 1
            }
            guard let session, track(channel) else { return nil }
            return session
        }

        /// Tracks a channel (control, data or data listener) until it closes; false once the
        /// server stops.
        @discardableResult
        func track(_ channel: Channel) -> Bool {
            let id: Int? = state.withLock { state in
                guard !state.stopped else { return nil }
                state.nextChannel += 1
                state.open[state.nextChannel] = channel
                if let peer = channel.remoteAddress?.ipAddress { state.peers.append(peer) }
                return state.nextChannel
            }
            guard let id else { return false }
            channel.closeFuture.whenComplete { _ in
                self.state.withLock { _ = $0.open.removeValue(forKey: id) }
            }
            return true
        }

        func record(_ command: FTPTestCommand) {
            state.withLock { $0.commands.append(command) }
        }

        var options: FTPTestServerOptions { state.withLock { $0.options } }

        /// The fault for the next RETR transfer, counting it.
        func nextTransferFault() -> FTPTestDataFault? {
            state.withLock { state in
                let index = state.transfers
                state.transfers += 1
                return index < state.options.dataFaults.count ? state.options.dataFaults[index] : nil
            }
        }

        /// Refuses new connections and returns the open ones; nil when already stopped.
        func stop() -> [Channel]? {
            state.withLock { state in
                guard !state.stopped else { return nil }
                state.stopped = true
                return Array(state.open.values)
            }
        }
    }
}

extension FTPTestServerOptions {
    /// The file at `path` as session `session` sees it.
    func file(_ path: String, session: Int) -> FTPTestFile? {
        if let list = versions[path], !list.isEmpty { return list[min(session, list.count - 1)] }
        return files[path]
    }

    /// Every path of a file this session can see.
    func filePaths(session: Int) -> Set<String> {
        Set(files.keys).union(versions.keys.filter { versions[$0]?.isEmpty == false })
    }

    /// True for "/" and every directory implied by a file or listed in `directories`.
    func isDirectory(_ path: String, session: Int) -> Bool {
        if path == "/" || directories.contains(path) { return true }
        let prefix = path + "/"
        return filePaths(session: session).contains { $0.hasPrefix(prefix) } || directories.contains { $0.hasPrefix(prefix) }
    }

    /// The names directly inside `directory`: (name, file or nil for a subdirectory).
    func children(of directory: String, session: Int) -> [(name: String, file: FTPTestFile?)] {
        let prefix = directory == "/" ? "/" : directory + "/"
        var names: [String: FTPTestFile?] = [:]
        for path in filePaths(session: session).union(directories) where path.hasPrefix(prefix) && path != prefix {
            let rest = path.dropFirst(prefix.count)
            if let slash = rest.firstIndex(of: "/") {
                names[String(rest[..<slash])] = .some(nil)
            } else if let file = file(path, session: session) {
                names[String(rest)] = file
            } else {
                names[String(rest)] = .some(nil)
            }
        }
        return names.keys.sorted().map { ($0, names[$0] ?? nil) }
    }
}
