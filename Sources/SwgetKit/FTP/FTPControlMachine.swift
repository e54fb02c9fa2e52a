/// The FTP control-connection dialogue (RFC 959, 2228/4217, 2428, 3659) as a pure state machine:
/// the driver feeds it events (parsed replies, data-connection and TLS news, timeouts, its own
/// decisions) and performs the one action each event returns. No I/O happens here.
///
/// Life cycle of one control connection:
///
/// 1. greeting (`220`; `120` waits; `421` fails) → explicit FTPS when configured (`AUTH TLS`,
///    then `AUTH SSL`; `234` → ``Action/startControlTLS``, the driver answers
///    ``Event/controlTLSEstablished``) → `USER` (`230` done, `331` → `PASS`, `332` → `ACCT`) →
///    with TLS `PBSZ 0` and `PROT P` → `TYPE I` → `PWD` in CWD mode → ``Action/ready``.
/// 2. Any number of jobs, one at a time (``Event/startJob(_:)`` while ready): each ends with
///    ``Action/jobFinished(_:)`` or ``Action/jobFailed(_:)``, after which the connection is
///    logged in and idle again, so the next file reuses it.
/// 3. ``Event/quit`` → `QUIT` → ``Action/close``.
///
/// A retrieval: [CWD per directory] → `SIZE` → `MDTM` (each skipped once the server said 500/502)
/// → ``Action/deliverMetadata(_:)``; the driver decides (``FTPResumeCheck``) and answers
/// ``Event/beginTransfer(offset:)`` or ``Event/skipTransfer`` → `EPSV` (or `PASV`; active:
/// ``Action/listenForDataConnection(tls:)`` then `EPRT` or `PORT`) → data connection →
/// `REST n` when n > 0 → ``Action/transfer(_:offset:)`` (`RETR`) → `150` → the job ends when both
/// the final reply (`226`) and the data connection's end have arrived, in either order.
///
/// Invariants: at most one command is outstanding, except the QUIT that may follow one; a job
/// ends (``Action/jobFinished(_:)``, ``Action/jobFailed(_:)``) only when no reply is pending, so
/// the next job's replies cannot be confused with this one's; after ``Action/fail(_:)`` or
/// ``Action/close`` the machine is closed and answers every event with ``Action/wait``.
struct FTPControlMachine: Sendable {
    /// How to talk to the server; fixed for the connection's life.
    struct Configuration: Equatable, Sendable {
        /// wget's anonymous password (`--ftp-password` default).
        static let anonymousPassword = "-wget@"

        /// `USER`; "anonymous" by default.
        var user = "anonymous"
        /// `PASS`; wget's "-wget@" by default.
        var password = Configuration.anonymousPassword
        /// For servers that ask for one (`332`); without it such a login fails.
        var account: String?
        /// TLS on the control connection.
        var security = Security.none
        /// With TLS on the control connection, protect data connections too (`PBSZ 0`,
        /// `PROT P`). Off: control only (curl's `--ftp-ssl-control`).
        var protectsData = true
        /// Passive (default) or active data connections.
        var dataMode = DataMode.passive
        /// Whole paths (default) or CWD per directory.
        var pathMode = PathMode.fullPath
        /// Try `EPSV` / `EPRT` before `PASV` / `PORT` (off: curl's `--disable-epsv`).
        var usesExtendedModes = true
        /// Try `MLSD` / `MLST` before `LIST` / `SIZE`.
        var usesMachineListings = true

        /// The defaults: anonymous, plain, passive, whole paths, EPSV and MLSD first.
        init() {}
    }

    /// TLS on the control connection (RFC 4217).
    enum Security: Equatable, Sendable {
        /// Plain FTP.
        case none
        /// `AUTH TLS` after the greeting; when refused, continue in clear text unless `required`.
        case explicit(required: Bool)
        /// `ftps://`: the driver started TLS before the greeting.
        case implicit
    }

    /// Who opens data connections.
    enum DataMode: Equatable, Sendable {
        /// The client connects (EPSV/PASV) to the control connection's peer.
        case passive
        /// The server connects (EPRT/PORT) to a listener of the client (`--no-passive-ftp`).
        case active
    }

    /// How paths reach the server.
    enum PathMode: Equatable, Sendable {
        /// Whole paths in SIZE/RETR/MLSD (curl's `nocwd`): no directory changes.
        case fullPath
        /// `CWD` once per directory segment, then bare names (curl's `multicwd`, wget's way).
        case changeDirectories
    }

    /// What to do with a logged-in connection.
    enum Job: Equatable, Sendable {
        /// Download a file: metadata first, then the transfer from an offset the driver chooses.
        case retrieve(FTPPath)
        /// List a directory (its ``FTPPath/directories``; a name is ignored): `MLSD`, or `LIST`
        /// when the server does not know MLSD. The listing arrives on the data connection.
        case list(FTPPath)
        /// Check that a file or directory exists (`--spider`): `MLST`, or `SIZE`.
        case probe(FTPPath)

        /// The job's path.
        var path: FTPPath {
            switch self {
            case .retrieve(let path), .list(let path), .probe(let path): path
            }
        }
    }

    /// What the server said about a file.
    struct FileInfo: Equatable, Sendable {
        /// From `SIZE` (`213 n`) or MLST's `size` fact.
        var size: Int64?
        /// From `MDTM` (`213 YYYYMMDDHHMMSS`) or MLST's `modify` fact.
        var modified: FTPTimestamp?
        /// From MLST's `type` fact.
        var kind: FTPListEntry.Kind?

        /// Facts from their parts (all unknown by default).
        init(size: Int64? = nil, modified: FTPTimestamp? = nil, kind: FTPListEntry.Kind? = nil) {
            self.size = size
            self.modified = modified
            self.kind = kind
        }
    }

    /// How a job ended well.
    enum JobResult: Equatable, Sendable {
        /// The data connection delivered `bytes` bytes, to be placed from `offset`.
        case retrieved(offset: Int64, bytes: Int64)
        /// The data connection delivered a listing in this format.
        case listed(FTPListingFormat)
        /// The path exists; nil when the server cannot tell more (neither MLST nor SIZE known,
        /// or a directory on a server without MLST: list its parent to be sure).
        case probed(FileInfo?)
        /// The driver answered ``Event/skipTransfer`` to the metadata.
        case skipped
    }

    /// Which connection went quiet.
    enum Timeout: Equatable, Sendable { case control, data }

    /// Everything the driver tells the machine.
    enum Event: Equatable, Sendable {
        /// A complete reply from ``FTPReplyParser``, in order.
        case reply(FTPReply)
        /// The TLS handshake asked by ``Action/startControlTLS`` succeeded (a failure is the
        /// driver's to report: it knows the trust result; it closes the connection).
        case controlTLSEstablished
        /// Start a job; only valid after ``Action/ready``, ``Action/jobFinished(_:)`` or
        /// ``Action/jobFailed(_:)``.
        case startJob(Job)
        /// The answer to ``Action/deliverMetadata(_:)``: transfer from this byte (0: all).
        case beginTransfer(offset: Int64)
        /// The answer to ``Action/deliverMetadata(_:)``: do not transfer (already complete,
        /// not newer for `-N`...). The job ends with ``JobResult/skipped``.
        case skipTransfer
        /// Active mode: the listener asked by ``Action/listenForDataConnection(tls:)`` is bound
        /// at this address (the control connection's local address) and port.
        case dataListenerReady(host: String, port: Int)
        /// The data connection is established (passive: connected; active: accepted).
        case dataConnectionOpened
        /// The data connection ended (EOF, or closed after ``Action/closeDataConnection``),
        /// after delivering `receivedBytes` bytes (after TLS decryption).
        case dataConnectionClosed(receivedBytes: Int64)
        /// The data connection could not be made or broke (refused, reset, TLS failure).
        case dataConnectionFailed(String)
        /// A listing went past the bytes swget reads of one (the data connection is closed):
        /// the server's directory is beyond what swget handles, so no retry helps.
        case listingTooLarge(limit: Int)
        /// The server closed the control connection (or it broke).
        case controlConnectionClosed
        /// No progress for the configured time.
        case timedOut(Timeout)
        /// End the session politely.
        case quit
    }

    /// The one thing the driver does next.
    enum Action: Equatable, Sendable {
        /// Nothing: wait for the next event.
        case wait
        /// Write the command's ``FTPCommand/wire`` bytes on the control connection.
        case send(FTPCommand)
        /// Start a TLS client handshake on the control connection (NIOSSL, verified like HTTPS);
        /// report ``Event/controlTLSEstablished``.
        case startControlTLS
        /// Passive: connect to `port` on the control connection's peer address (never to
        /// `announcedHost`, the PASV reply's address, kept for logs). With `tls`, start the TLS
        /// client handshake as soon as it connects but do not wait for it to finish: the server
        /// accepts TLS only after the transfer command. Report ``Event/dataConnectionOpened``
        /// or ``Event/dataConnectionFailed(_:)``.
        case openDataConnection(port: Int, announcedHost: String?, tls: Bool)
        /// Active: listen on the control connection's local address, port 0, for one
        /// connection (TLS client handshake on it when `tls`: the FTP client is always the TLS
        /// client, RFC 4217 §7); report ``Event/dataListenerReady(host:port:)``, later
        /// ``Event/dataConnectionOpened``.
        case listenForDataConnection(tls: Bool)
        /// Close the data connection (or listener) and report
        /// ``Event/dataConnectionClosed(receivedBytes:)``: MLSD was refused and LIST gets a
        /// fresh one.
        case closeDataConnection
        /// Send the transfer command (RETR, MLSD, LIST). The data connection's bytes belong at
        /// `offset` of the file: 0 when no resume was asked, or when the server refused REST
        /// (then the driver truncates and starts over); for listings always 0.
        case transfer(FTPCommand, offset: Int64)
        /// SIZE and MDTM answered: decide with ``FTPResumeCheck`` (or `-N`) and answer with
        /// ``Event/beginTransfer(offset:)`` or ``Event/skipTransfer``.
        case deliverMetadata(FileInfo)
        /// Logged in and idle: start a job or quit.
        case ready
        /// The job succeeded; close its data connection if still open. Idle again.
        case jobFinished(JobResult)
        /// The job failed but the connection is fine; close any data connection. Idle again.
        case jobFailed(FTPFailure)
        /// The connection cannot go on: close the data and control connections.
        case fail(FTPFailure)
        /// QUIT answered (or the server left): close the control connection.
        case close
    }

    /// A bound on preliminary (1yz) replies to one command: a server cannot keep us forever.
    static let maxPreliminaryReplies = 8

    /// The settings of this connection.
    let configuration: Configuration
    /// Where the dialogue stands (internal: the extensions and tests read it).
    var state = State.greeting
    /// What this server was found not to support (500/502), so later jobs skip it.
    var refused = Set<Feature>()
    /// Whether TLS protects the control connection.
    var controlSecured = false
    /// Whether `PROT P` is in force.
    var dataProtected = false
    /// The login directory from PWD (CWD mode), to return to between jobs.
    var entryDirectory: String?
    /// The directory segments we are in, relative to the login directory; nil when unknown.
    var currentDirectory: [String]? = []
    /// 1yz replies to the command in flight (bounded by ``maxPreliminaryReplies``).
    var preliminaryReplies = 0

    /// A machine waiting for the greeting.
    init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// True when a job can start now (logged in, nothing outstanding).
    var isIdle: Bool { state == .idle }

    /// True once the connection is finished with (failed, or quit).
    var isClosed: Bool { state == .closed }

    /// The driver's single entry point.
    mutating func handle(_ event: Event) -> Action {
        if state == .closed { return .wait }
        switch event {
        case .reply(let reply): return receive(reply)
        case .controlTLSEstablished: return controlTLSEstablished()
        case .startJob(let job): return start(job)
        case .beginTransfer(let offset): return beginTransfer(at: offset)
        case .skipTransfer: return skipTransfer()
        case .dataListenerReady(let host, let port): return listenerReady(host: host, port: port)
        case .dataConnectionOpened: return dataOpened()
        case .dataConnectionClosed(let bytes): return dataClosed(receivedBytes: bytes)
        case .dataConnectionFailed(let reason):
            guard case .job = state else { return .wait }
            return fail(.network, "data connection failed: \(reason)")
        case .listingTooLarge(let limit):
            guard case .job = state else { return .wait }
            return fail(.protocolViolation, "the directory listing is larger than \(limit >> 20) MiB")
        case .controlConnectionClosed:
            if state == .quitting {
                state = .closed
                return .close
            }
            return fail(.network, "the server closed the control connection")
        case .timedOut(let which):
            if state == .quitting {
                state = .closed
                return .close
            }
            return fail(.network, which == .control ? "the server stopped answering (control connection timed out)"
                                                   : "the data connection stalled (timed out)")
        case .quit:
            state = .quitting
            return send(.quit)
        }
    }

    private mutating func receive(_ reply: FTPReply) -> Action {
        if state == .quitting {
            if reply.code == 221 || reply.code == 421 {
                state = .closed
                return .close
            }
            return .wait
        }
        if reply.code == 421 {
            return fail(.network, "the server is closing the connection: \(reply.summary)", reply)
        }
        if reply.kind == .preliminary {
            preliminaryReplies += 1
            guard preliminaryReplies <= Self.maxPreliminaryReplies else {
                return fail(.protocolViolation, "too many preliminary replies", reply)
            }
            return .wait
        }
        switch state {
        case .greeting, .securing, .awaitingControlTLS, .loggingIn, .protectingData, .settingType, .askingDirectory:
            return loginReply(reply)
        case .job(let job):
            return jobReply(reply, job)
        case .idle:
            return fail(.protocolViolation, "unexpected reply while idle: \(reply)", reply)
        case .quitting, .closed:
            return .wait
        }
    }

    // MARK: helpers shared by the extensions

    /// Sends a command, starting a new count of preliminary replies.
    mutating func send(_ command: FTPCommand) -> Action {
        preliminaryReplies = 0
        return .send(command)
    }

    /// Ends the connection with a failure.
    mutating func fail(_ kind: FTPFailure.Kind, _ message: String, _ reply: FTPReply? = nil) -> Action {
        state = .closed
        return .fail(FTPFailure(kind, message, reply: reply))
    }

    /// Ends the job with a failure; the connection stays logged in.
    mutating func failJob(_ kind: FTPFailure.Kind, _ message: String, _ reply: FTPReply? = nil) -> Action {
        state = .idle
        return .jobFailed(FTPFailure(kind, message, reply: reply))
    }
}

/// Why a job or a connection failed, classified for the engine's exit codes.
struct FTPFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// Classes of failure; suggested exit codes follow wget's table.
    enum Kind: Equatable, Sendable {
        /// Login refused (530, 5yz to USER/PASS/ACCT, an account needed but none given):
        /// wget's exit 6.
        case authentication
        /// 550 to RETR, CWD, MLST, MLSD, LIST, or SIZE in a probe: exit 8 (server error).
        case notFound
        /// Another permanent refusal (5yz): exit 8.
        case serverError
        /// A transient refusal (4yz: 425, 426, 450, 451, 452) or a transfer that ended short:
        /// retry, resuming. Exit 4 when retries run out.
        case transient
        /// 421, a closed or broken connection, a timeout: retry on a new connection. Exit 4.
        case network
        /// The server broke the protocol (malformed or unexpected replies, bad passive
        /// tuples): exit 7.
        case protocolViolation
        /// TLS was required and the server refused it (AUTH, PBSZ, PROT): exit 5.
        case tls
        /// Something the request cannot do (active mode over IPv6 without EPRT, a login
        /// directory that cannot be found again): exit 1.
        case unsupported
    }

    /// The class of failure.
    let kind: Kind
    /// One line, without the URL.
    let message: String
    /// The reply that caused it, when one did.
    let reply: FTPReply?

    /// A failure from its parts.
    init(_ kind: Kind, _ message: String, reply: FTPReply? = nil) {
        self.kind = kind
        self.message = message
        self.reply = reply
    }

    /// True for failures worth another attempt (``Kind/transient``, ``Kind/network``).
    var isRetryable: Bool { kind == .transient || kind == .network }

    var description: String { message }
}
