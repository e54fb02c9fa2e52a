/// The machine's states, and the way from the greeting to a logged-in, idle connection:
/// greeting → [AUTH TLS / AUTH SSL → TLS] → USER → [PASS] → [ACCT] → [PBSZ 0 → PROT P] → TYPE I →
/// [PWD] → ready.
extension FTPControlMachine {
    /// Where the dialogue stands.
    enum State: Equatable, Sendable {
        /// Waiting for `220`.
        case greeting
        /// `AUTH TLS` (or, after a refusal, `AUTH SSL`) sent.
        case securing(mechanism: String)
        /// `234` received, the driver is doing the TLS handshake.
        case awaitingControlTLS
        case loggingIn(LoginStep)
        case protectingData(ProtectionStep)
        /// `TYPE I` sent.
        case settingType
        /// `PWD` sent (CWD mode).
        case askingDirectory
        /// Logged in, nothing outstanding.
        case idle
        case job(JobState)
        /// `QUIT` sent.
        case quitting
        /// Failed or quit: every event is ignored.
        case closed
    }

    /// The login command in flight.
    enum LoginStep: Equatable, Sendable { case user, pass, account }

    /// `PBSZ` (buffer size) or `PROT` (level) in flight.
    enum ProtectionStep: Equatable, Sendable { case bufferSize, level }

    /// Optional commands a server may not know (500/502), remembered for the connection.
    enum Feature: Hashable, Sendable {
        case extendedPassive, extendedPort, size, modificationTime, restart, machineListing, machineEntry
    }

    /// TLS is a must: implicit FTPS, or explicit with `required`.
    var tlsRequired: Bool {
        switch configuration.security {
        case .none: false
        case .explicit(let required): required
        case .implicit: true
        }
    }

    /// A reply during login (preliminary and 421 replies were handled by the caller).
    mutating func loginReply(_ reply: FTPReply) -> Action {
        switch state {
        case .greeting:
            guard reply.code == 220 else {
                switch reply.kind {
                case .transientNegative: return fail(.network, "the server refused the session: \(reply.summary)", reply)
                case .permanentNegative: return fail(.serverError, "the server refused the session: \(reply.summary)", reply)
                default: return fail(.protocolViolation, "unexpected greeting: \(reply)", reply)
                }
            }
            switch configuration.security {
            case .none:
                return sendUser()
            case .implicit:
                controlSecured = true
                return sendUser()
            case .explicit:
                state = .securing(mechanism: "TLS")
                return send(.auth("TLS"))
            }

        case .securing(let mechanism):
            if reply.code == 234 || reply.code == 334 {
                state = .awaitingControlTLS
                return .startControlTLS
            }
            guard reply.kind == .transientNegative || reply.kind == .permanentNegative else {
                return fail(.protocolViolation, "unexpected reply to AUTH: \(reply)", reply)
            }
            if mechanism == "TLS" {
                state = .securing(mechanism: "SSL")
                return send(.auth("SSL"))
            }
            if tlsRequired { return fail(.tls, "the server refuses TLS: \(reply.summary)", reply) }
            return sendUser()

        case .awaitingControlTLS:
            return fail(.protocolViolation, "reply during the TLS handshake: \(reply)", reply)

        case .loggingIn(let step):
            switch reply.code {
            case 230, 202:
                return loggedIn()
            case 331 where step == .user:
                state = .loggingIn(.pass)
                return send(.pass(configuration.password))
            case 332 where step != .account:
                guard let account = configuration.account else {
                    return fail(.authentication, "the server asks for an account (ACCT), none was given", reply)
                }
                state = .loggingIn(.account)
                return send(.acct(account))
            default:
                switch reply.kind {
                case .transientNegative: return fail(.network, "login failed for now: \(reply.summary)", reply)
                case .permanentNegative: return fail(.authentication, "login refused: \(reply.summary)", reply)
                default: return fail(.protocolViolation, "unexpected reply during login: \(reply)", reply)
                }
            }

        case .protectingData(let step):
            switch reply.kind {
            case .completion:
                if step == .bufferSize {
                    state = .protectingData(.level)
                    return send(.protPrivate)
                }
                dataProtected = true
                return setType()
            case .transientNegative, .permanentNegative:
                if tlsRequired { return fail(.tls, "the server refuses to protect data connections: \(reply.summary)", reply) }
                return setType()
            default:
                return fail(.protocolViolation, "unexpected reply to \(step == .bufferSize ? "PBSZ" : "PROT"): \(reply)", reply)
            }

        case .settingType:
            guard reply.kind == .completion else {
                return fail(.serverError, "the server refuses binary mode (TYPE I): \(reply.summary)", reply)
            }
            if configuration.pathMode == .changeDirectories {
                state = .askingDirectory
                return send(.pwd)
            }
            return becomeReady()

        case .askingDirectory:
            // Tolerated when it fails: only returning between directories needs it.
            if reply.code == 257, let line = reply.lines.first {
                entryDirectory = FTPPath.workingDirectory(fromPWDReply: line).flatMap {
                    FTPCommand.isSafeArgument($0) ? $0 : nil
                }
            }
            return becomeReady()

        case .idle, .job, .quitting, .closed:
            return .wait
        }
    }

    /// The TLS handshake on the control connection finished.
    mutating func controlTLSEstablished() -> Action {
        guard state == .awaitingControlTLS else { return .wait }
        controlSecured = true
        return sendUser()
    }

    private mutating func sendUser() -> Action {
        let credentials = [configuration.user, configuration.password] + (configuration.account.map { [$0] } ?? [])
        guard credentials.allSatisfy(FTPCommand.isSafeArgument) else {
            return fail(.unsupported, "the user name, password or account contains a line break or NUL")
        }
        state = .loggingIn(.user)
        return send(.user(configuration.user))
    }

    private mutating func loggedIn() -> Action {
        if controlSecured && configuration.protectsData {
            state = .protectingData(.bufferSize)
            return send(.pbsz)
        }
        return setType()
    }

    private mutating func setType() -> Action {
        state = .settingType
        return send(.typeImage)
    }

    private mutating func becomeReady() -> Action {
        state = .idle
        currentDirectory = []
        return .ready
    }
}
