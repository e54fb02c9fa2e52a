/// Jobs on a logged-in connection: the way to the directory (CWD mode), the metadata of a
/// retrieval (SIZE, MDTM), the existence check of a probe (MLST, SIZE), and the dispatch of
/// replies to the step that awaits them. Data connections and transfers are in
/// `FTPControlMachine+Transfer.swift`.
extension FTPControlMachine {
    /// The running job.
    struct JobState: Equatable, Sendable {
        /// What runs.
        let job: Job
        /// What it waits for.
        var step: Step
        /// CWD arguments still to send (CWD mode).
        var directoryCommands: [String] = []
        /// SIZE/MDTM (or MLST) answers so far.
        var info = FileInfo()
        /// The offset the driver asked for in ``Event/beginTransfer(offset:)``.
        var requestedOffset: Int64 = 0
        /// Where the transfer's bytes go (0 when REST was refused).
        var offset: Int64 = 0
        /// Active mode: the listener's address, kept for the PORT fallback.
        var listenerHost = ""
        var listenerPort = 0
        /// The data connection ended (driver's report).
        var dataEnded = false
        /// Bytes the data connection delivered.
        var receivedBytes: Int64 = 0
        /// The transfer's final (2yz) reply arrived.
        var completed = false
        /// The listing command in use (MLSD until refused).
        var format = FTPListingFormat.mlsd

        /// A job at its first step.
        init(job: Job, step: Step) {
            self.job = job
            self.step = step
        }
    }

    /// What the job waits for.
    enum Step: Equatable, Sendable {
        /// A CWD reply.
        case changingDirectory
        /// The SIZE reply of a retrieval.
        case size
        /// The MDTM reply of a retrieval.
        case modificationTime
        /// The driver's answer to ``Action/deliverMetadata(_:)``.
        case awaitingDecision
        /// The MLST reply of a probe.
        case entry
        /// The SIZE reply of a probe.
        case probeSize
        /// An EPSV (`extended`) or PASV reply.
        case passive(extended: Bool)
        /// The driver connecting the passive data connection.
        case connecting
        /// The driver binding the active listener.
        case listening
        /// An EPRT (`extended`) or PORT reply.
        case port(extended: Bool)
        /// The REST reply.
        case restart
        /// The transfer's replies and the data connection's end.
        case transferring
        /// The driver closing the data connection refused with MLSD, before LIST.
        case closingData
    }

    /// ``Event/startJob(_:)``.
    mutating func start(_ job: Job) -> Action {
        guard state == .idle else { return fail(.unsupported, "a job was started while the connection was not idle") }
        var running = JobState(job: job, step: .changingDirectory)
        if configuration.pathMode == .changeDirectories, currentDirectory != job.path.directories {
            var commands = job.path.changeDirectoryArguments
            if currentDirectory != [] {
                guard let entry = entryDirectory else {
                    return failJob(.unsupported, "cannot return to the login directory (the server did not answer PWD)")
                }
                commands.insert(entry, at: 0)
            }
            currentDirectory = nil
            running.directoryCommands = commands
        }
        return nextDirectory(running)
    }

    /// Sends the next CWD, or goes on with the job once in the directory.
    private mutating func nextDirectory(_ running: JobState) -> Action {
        var running = running
        if !running.directoryCommands.isEmpty {
            let argument = running.directoryCommands.removeFirst()
            running.step = .changingDirectory
            state = .job(running)
            return send(.cwd(argument))
        }
        if configuration.pathMode == .changeDirectories { currentDirectory = running.job.path.directories }
        switch running.job {
        case .retrieve: return askSize(running)
        case .list: return setUpData(running)
        case .probe: return askEntry(running)
        }
    }

    /// The argument naming the job's file: the whole path, or the bare name in CWD mode.
    func fileArgument(_ path: FTPPath) -> String {
        configuration.pathMode == .fullPath ? path.fullPath : path.name
    }

    /// The argument naming the job's directory for MLSD/LIST (nil: the current directory).
    func directoryArgument(_ path: FTPPath) -> String? {
        configuration.pathMode == .fullPath && !path.directoryPath.isEmpty ? path.directoryPath : nil
    }

    private mutating func askSize(_ running: JobState) -> Action {
        guard !refused.contains(.size) else { return askModificationTime(running) }
        var running = running
        running.step = .size
        state = .job(running)
        return send(.size(fileArgument(running.job.path)))
    }

    private mutating func askModificationTime(_ running: JobState) -> Action {
        var running = running
        guard !refused.contains(.modificationTime) else {
            running.step = .awaitingDecision
            state = .job(running)
            return .deliverMetadata(running.info)
        }
        running.step = .modificationTime
        state = .job(running)
        return send(.mdtm(fileArgument(running.job.path)))
    }

    private mutating func askEntry(_ running: JobState) -> Action {
        guard configuration.usesMachineListings, !refused.contains(.machineEntry) else { return askProbeSize(running) }
        var running = running
        running.step = .entry
        state = .job(running)
        let path = running.job.path
        return send(.mlst(path.isDirectory ? directoryArgument(path) : fileArgument(path)))
    }

    private mutating func askProbeSize(_ running: JobState) -> Action {
        guard !running.job.path.isDirectory, !refused.contains(.size) else {
            state = .idle
            return .jobFinished(.probed(nil))
        }
        var running = running
        running.step = .probeSize
        state = .job(running)
        return send(.size(fileArgument(running.job.path)))
    }

    /// 500 and 502: the command is unknown or not implemented (RFC 959 §4.2.1).
    static func isUnknownCommand(_ reply: FTPReply) -> Bool { reply.code == 500 || reply.code == 502 }

    /// The usual classification of a refusal to a job's command.
    mutating func refuse(_ reply: FTPReply, _ what: String) -> Action {
        switch reply.code {
        case 550: return failJob(.notFound, "\(what): \(reply.summary)", reply)
        case 530: return failJob(.authentication, "\(what): \(reply.summary)", reply)
        default:
            switch reply.kind {
            case .transientNegative: return failJob(.transient, "\(what): \(reply.summary)", reply)
            case .permanentNegative: return failJob(.serverError, "\(what): \(reply.summary)", reply)
            default: return fail(.protocolViolation, "unexpected reply (\(what)): \(reply)", reply)
            }
        }
    }

    /// A final (non-1yz, non-421) reply while a job runs.
    mutating func jobReply(_ reply: FTPReply, _ running: JobState) -> Action {
        var running = running
        let path = running.job.path
        switch running.step {
        case .changingDirectory:
            guard reply.kind == .completion else { return refuse(reply, "cannot enter the directory of \(path)") }
            return nextDirectory(running)

        case .size:
            if reply.code == 213 {
                running.info.size = FTPListing.decimal(reply.lines[0].trimmingOWS)
            } else if reply.kind == .intermediate {
                return fail(.protocolViolation, "unexpected reply to SIZE: \(reply)", reply)
            } else if Self.isUnknownCommand(reply) {
                refused.insert(.size)
            }
            // Any refusal leaves the size unknown; RETR will tell whether the file exists.
            return askModificationTime(running)

        case .modificationTime:
            if reply.code == 213 {
                running.info.modified = FTPTimestamp(timeVal: reply.lines[0].trimmingOWS)
            } else if reply.kind == .intermediate {
                return fail(.protocolViolation, "unexpected reply to MDTM: \(reply)", reply)
            } else if Self.isUnknownCommand(reply) {
                refused.insert(.modificationTime)
            }
            running.step = .awaitingDecision
            state = .job(running)
            return .deliverMetadata(running.info)

        case .entry:
            if reply.kind == .completion {
                state = .idle
                return .jobFinished(.probed(Self.entryInfo(reply)))
            }
            if Self.isUnknownCommand(reply) {
                refused.insert(.machineEntry)
                return askProbeSize(running)
            }
            return refuse(reply, "no such file or directory \(path)")

        case .probeSize:
            if reply.code == 213 {
                state = .idle
                return .jobFinished(.probed(FileInfo(size: FTPListing.decimal(reply.lines[0].trimmingOWS), kind: .file)))
            }
            if Self.isUnknownCommand(reply) {
                refused.insert(.size)
                state = .idle
                return .jobFinished(.probed(nil))
            }
            return refuse(reply, "no such file \(path)")

        case .passive, .port, .restart, .transferring:
            return transferReply(reply, running)

        case .awaitingDecision, .connecting, .listening, .closingData:
            return fail(.protocolViolation, "unexpected reply while no command was outstanding: \(reply)", reply)
        }
    }

    /// The facts of an MLST reply's entry line (RFC 3659 §7.2: the line between the first and
    /// the last that starts with a space); an entry without facts when there is none.
    private static func entryInfo(_ reply: FTPReply) -> FileInfo {
        for line in reply.lines.dropFirst().dropLast() {
            if let entry = FTPListing.parseMLSTEntry(line) {
                return FileInfo(size: entry.size, modified: entry.modified, kind: entry.kind)
            }
        }
        return FileInfo()
    }
}
