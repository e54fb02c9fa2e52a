/// Data connections and transfers: EPSV → PASV (passive) or listener → EPRT → PORT (active),
/// REST, the transfer command, and the end of a transfer, which needs both the final reply and
/// the data connection's end, in whichever order they come.
extension FTPControlMachine {
    /// ``Event/beginTransfer(offset:)``: the driver's decision after the metadata.
    mutating func beginTransfer(at offset: Int64) -> Action {
        guard case .job(var running) = state, running.step == .awaitingDecision else {
            return fail(.unsupported, "a transfer was begun while no metadata was awaiting a decision")
        }
        running.requestedOffset = max(0, offset)
        return setUpData(running)
    }

    /// ``Event/skipTransfer``.
    mutating func skipTransfer() -> Action {
        guard case .job(let running) = state, running.step == .awaitingDecision else {
            return fail(.unsupported, "a transfer was skipped while no metadata was awaiting a decision")
        }
        state = .idle
        return .jobFinished(.skipped)
    }

    /// Asks for a data connection in the configured mode.
    mutating func setUpData(_ running: JobState) -> Action {
        var running = running
        running.dataEnded = false
        running.receivedBytes = 0
        running.completed = false
        switch configuration.dataMode {
        case .passive:
            let extended = configuration.usesExtendedModes && !refused.contains(.extendedPassive)
            running.step = .passive(extended: extended)
            state = .job(running)
            return send(extended ? .epsv : .pasv)
        case .active:
            running.step = .listening
            state = .job(running)
            return .listenForDataConnection(tls: dataProtected)
        }
    }

    /// ``Event/dataListenerReady(host:port:)``: announce the listener.
    mutating func listenerReady(host: String, port: Int) -> Action {
        guard case .job(var running) = state, running.step == .listening else { return .wait }
        running.listenerHost = host
        running.listenerPort = port
        if configuration.usesExtendedModes, !refused.contains(.extendedPort),
           let argument = FTPAddress.extendedPortArgument(host: host, port: port) {
            running.step = .port(extended: true)
            state = .job(running)
            return send(.eprt(argument))
        }
        return sendPort(running)
    }

    private mutating func sendPort(_ running: JobState) -> Action {
        var running = running
        guard let argument = FTPAddress.portArgument(host: running.listenerHost, port: running.listenerPort) else {
            return failJob(.unsupported, "active mode to \(running.listenerHost) needs EPRT, which the server does not support")
        }
        running.step = .port(extended: false)
        state = .job(running)
        return send(.port(argument))
    }

    /// ``Event/dataConnectionOpened``.
    mutating func dataOpened() -> Action {
        guard case .job(let running) = state else { return .wait }
        // Active mode: the server connects after the transfer command; nothing to do.
        return running.step == .connecting ? dataReady(running) : .wait
    }

    /// ``Event/dataConnectionClosed(receivedBytes:)``.
    mutating func dataClosed(receivedBytes: Int64) -> Action {
        guard case .job(var running) = state else { return .wait }
        if running.step == .closingData {
            running.format = .list
            return setUpData(running)
        }
        running.dataEnded = true
        running.receivedBytes = max(0, receivedBytes)
        state = .job(running)
        return running.step == .transferring && running.completed ? finish(running) : .wait
    }

    /// Passive: the data connection is up. Active: the server accepted our address.
    private mutating func dataReady(_ running: JobState) -> Action {
        let path = running.job.path
        switch running.job {
        case .retrieve:
            if running.requestedOffset > 0, !refused.contains(.restart) {
                var running = running
                running.step = .restart
                state = .job(running)
                return send(.rest(running.requestedOffset))
            }
            return startTransfer(running, .retr(fileArgument(path)), offset: 0)
        case .list:
            var running = running
            if running.format == .mlsd, !(configuration.usesMachineListings && !refused.contains(.machineListing)) {
                running.format = .list
            }
            let command = running.format == .mlsd ? FTPCommand.mlsd(directoryArgument(path)) : .list(directoryArgument(path))
            return startTransfer(running, command, offset: 0)
        case .probe:
            return fail(.protocolViolation, "a data connection was opened for a probe")
        }
    }

    private mutating func startTransfer(_ running: JobState, _ command: FTPCommand, offset: Int64) -> Action {
        var running = running
        running.offset = offset
        running.step = .transferring
        state = .job(running)
        preliminaryReplies = 0
        return .transfer(command, offset: offset)
    }

    /// Replies to EPSV, PASV, EPRT, PORT, REST and the transfer command.
    mutating func transferReply(_ reply: FTPReply, _ running: JobState) -> Action {
        var running = running
        switch running.step {
        case .passive(let extended):
            let expected = extended ? 229 : 227
            if reply.code == expected {
                let port: Int
                var announced: String?
                do {
                    if extended {
                        port = try FTPAddress.parseExtendedPassive(reply.text).port
                    } else {
                        let passive = try FTPAddress.parsePassive(reply.text)
                        port = passive.port
                        announced = passive.announcedHostString
                    }
                } catch {
                    return fail(.protocolViolation, "\(error): \(reply.summary)", reply)
                }
                running.step = .connecting
                state = .job(running)
                return .openDataConnection(port: port, announcedHost: announced, tls: dataProtected)
            }
            if extended, reply.kind == .permanentNegative {
                refused.insert(.extendedPassive)
                running.step = .passive(extended: false)
                state = .job(running)
                return send(.pasv)
            }
            if reply.kind == .completion || reply.kind == .intermediate {
                return fail(.protocolViolation, "unexpected reply to \(extended ? "EPSV" : "PASV"): \(reply)", reply)
            }
            return refuse(reply, "the server refuses passive mode")

        case .port(let extended):
            if reply.kind == .completion { return dataReady(running) }
            if extended, reply.kind == .permanentNegative {
                refused.insert(.extendedPort)
                return sendPort(running)
            }
            if reply.kind == .intermediate {
                return fail(.protocolViolation, "unexpected reply to \(extended ? "EPRT" : "PORT"): \(reply)", reply)
            }
            return refuse(reply, "the server refuses active mode")

        case .restart:
            let path = running.job.path
            if reply.code == 350 { return startTransfer(running, .retr(fileArgument(path)), offset: running.requestedOffset) }
            if reply.kind == .permanentNegative {
                // No resume: the same RETR from byte 0, and the driver starts the file over.
                if Self.isUnknownCommand(reply) { refused.insert(.restart) }
                return startTransfer(running, .retr(fileArgument(path)), offset: 0)
            }
            if reply.kind == .completion || reply.kind == .intermediate {
                return fail(.protocolViolation, "unexpected reply to REST: \(reply)", reply)
            }
            return refuse(reply, "the server cannot resume now")

        case .transferring:
            if reply.kind == .completion {
                running.completed = true
                state = .job(running)
                return running.dataEnded ? finish(running) : .wait
            }
            if case .list = running.job, running.format == .mlsd, Self.isUnknownCommand(reply) {
                refused.insert(.machineListing)
                running.step = .closingData
                state = .job(running)
                return .closeDataConnection
            }
            if reply.kind == .intermediate {
                return fail(.protocolViolation, "unexpected reply to the transfer command: \(reply)", reply)
            }
            if case .list = running.job {
                return refuse(reply, "cannot list \(running.job.path.directoryPath.isEmpty ? "the directory" : running.job.path.directoryPath)")
            }
            return refuse(reply, reply.kind == .transientNegative ? "transfer of \(running.job.path) failed" : "cannot retrieve \(running.job.path)")

        default:
            return fail(.protocolViolation, "unexpected reply: \(reply)", reply)
        }
    }

    /// Both the final reply and the data connection's end are in.
    private mutating func finish(_ running: JobState) -> Action {
        switch running.job {
        case .retrieve:
            let (sum, overflow) = running.offset.addingReportingOverflow(running.receivedBytes)
            let end = overflow ? Int64.max : sum
            if let size = running.info.size, end < size {
                return failJob(.transient, "the data connection closed after \(end) of \(size) bytes")
            }
            state = .idle
            return .jobFinished(.retrieved(offset: running.offset, bytes: running.receivedBytes))
        case .list:
            state = .idle
            return .jobFinished(.listed(running.format))
        case .probe:
            state = .idle
            return .jobFinished(.probed(running.info))
        }
    }
}
