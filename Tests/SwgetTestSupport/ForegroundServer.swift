import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a real server from Debian (Apache, tinyproxy, microsocks, vsftpd, nginx with WebDAV) could
/// not be started: a missing package, a refused configuration, or a server that never answered.
public struct RealServerError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// One daemon run in the foreground for one test: its own process group, its configuration, logs
/// and state in a fresh temporary directory, free loopback ports. The harnesses (`Apache`,
/// `ForwardProxy`, `SocksServer`, `FTPServer`, `NginxWebDAV`) are thin layers over it.
///
/// Invariants: after `stop()` returns, no process of the group is running (TERM to the group,
/// KILL to the group after 5 s, the leader reaped last so that its group id cannot be reused
/// meanwhile), the temporary directory is gone, and the harness's extra cleanup has run once.
package final class ForegroundServer: Sendable {
    /// What one launch attempt runs, written by the harness into a fresh directory with fresh ports.
    package struct Plan: Sendable {
        /// Arguments after the binary's path.
        package var arguments: [String]
        /// Ports on 127.0.0.1 that must all accept a connection before the server counts as ready.
        package var ports: [Int]
        /// Run once by `stop()` (or when the attempt fails), after the processes are gone: for
        /// state outside the temporary directory (e.g. a PAM service file).
        package var cleanup: (@Sendable () -> Void)?

        package init(arguments: [String], ports: [Int], cleanup: (@Sendable () -> Void)? = nil) {
            self.arguments = arguments
            self.ports = ports
            self.cleanup = cleanup
        }
    }

    /// The leader's process id, also the process group's id.
    package let pid: pid_t
    /// The temporary directory holding configuration, logs and state (removed by `stop()`).
    package let directory: String
    /// The leader's standard output and error (in `directory`).
    package var outputPath: String { directory + "/output.log" }

    private let cleanup: (@Sendable () -> Void)?
    private let stopped = Mutex(false)

    private init(pid: pid_t, directory: String, cleanup: (@Sendable () -> Void)?) {
        self.pid = pid
        self.directory = directory
        self.cleanup = cleanup
    }

    deinit { stop() }

    /// Starts `binary` with the plan `prepare` writes into a fresh directory, and returns once every
    /// port of the plan accepts a connection. When the server exits first and its output mentions a
    /// port already in use (a race for a port that was free a moment ago), it tries again with a new
    /// directory and new ports: 5 attempts. Throws `RealServerError` with the server's own logs
    /// (`output.log` plus the files named in `logs`) when it exits or stays silent for `timeout` s.
    package static func launch(
        name: String, binary: String, logs: [String] = [], environment: [String: String] = [:],
        timeout: Double = 10, prepare: (_ directory: String) throws -> Plan
    ) async throws -> ForegroundServer {
        var attempt = 0
        while true {
            attempt += 1
            let directory = try makeTemporaryDirectory(prefix: "swget-\(name)")
            let plan: Plan
            do {
                plan = try prepare(directory)
            } catch {
                try? FileManager.default.removeItem(atPath: directory)
                throw error
            }
            let server: ForegroundServer
            do {
                let output = open(directory + "/output.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                guard output >= 0 else { throw SwgetProcessError.systemCall("open \(directory)/output.log", errno: errno) }
                defer { close(output) }
                var env = ["PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C"]
                env.merge(environment) { _, new in new }
                let pid = try Posix.spawn(executable: binary, arguments: plan.arguments, environment: env,
                                          directory: directory, stdin: nil, stdout: output, stderr: output)
                server = ForegroundServer(pid: pid, directory: directory, cleanup: plan.cleanup)
            } catch {
                plan.cleanup?()
                try? FileManager.default.removeItem(atPath: directory)
                throw error
            }

            let deadline = Posix.now() + timeout
            var exited = false, stolen = false
            while Posix.now() < deadline {
                if Self.hasExited(server.pid) { exited = true; break }
                if plan.ports.allSatisfy({ Nginx.accepts(port: $0) }) {
                    // Another test's server may have taken a port between the plan's choice and
                    // the bind (nginx then retries its bind for seconds while that server answers):
                    // the listener must belong to this server's process group.
                    if plan.ports.allSatisfy({ Self.listener(port: $0, isInGroup: server.pid) }) { return server }
                    stolen = true
                    break
                }
                // A sleep, not usleep: the caller is on Swift's cooperative pool (two threads on
                // two cores), and every test of the process waits while it is blocked. Cancelled,
                // it stops waiting (the server is stopped below) instead of spinning.
                guard (try? await Task.sleep(for: .milliseconds(10))) != nil else { break }
            }
            let logs = server.logs(["output.log"] + logs)
            server.stop()
            let lowered = logs.lowercased()
            let portTaken = stolen || lowered.contains("in use") || lowered.contains("could not bind") || lowered.contains("unable to bind")
            if (exited || stolen) && portTaken && attempt < 5 { continue }
            throw RealServerError(exited
                ? "\(name) exited at startup (\(binary) \(plan.arguments.joined(separator: " "))):\n\(logs)"
                : "\(name) did not accept connections on \(plan.ports) within \(Int(timeout)) s (\(binary)):\n\(logs)")
        }
    }

    /// Stops the whole process group (TERM, then KILL after 5 s), reaps the leader, waits (at most
    /// 2 s) until no member of the group is left running, runs the harness's cleanup and removes the
    /// temporary directory. Idempotent; safe from any thread.
    package func stop() {
        let first = stopped.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        Self.terminateGroup(pid)
        cleanup?()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The text of a file in the temporary directory ("" when missing or after `stop()`).
    package func read(_ name: String) -> String {
        (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
    }

    /// The named files, each under a "--- name:" heading, skipping empty ones (for error messages).
    package func logs(_ names: [String]) -> String {
        names.compactMap { name -> String? in
            let text = read(name)
            return text.isEmpty ? nil : "--- \(name):\n\(text.suffix(8000))"
        }.joined(separator: "\n")
    }

    /// Process ids of the group's members that are not zombies, read from /proc (for tests asserting
    /// that a harness left nothing running).
    package static func runningMembers(ofGroup group: pid_t) -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), let fields = statFields(pid), fields.count > 2 else { return nil }
            return fields[2] != "Z" && pid_t(fields[4]) == group ? pid : nil
        }
    }

    // MARK: - Internals

    /// Whether the (unreaped) leader has exited: /proc says zombie, or it is gone.
    /// Whether the socket listening on 127.0.0.1:`port` is held by a process of the group
    /// `group` (found through /proc/net/tcp's inode and the processes' descriptors).
    private static func listener(port: Int, isInGroup group: pid_t) -> Bool {
        let local = String(format: "0100007F:%04X", port), any = String(format: "00000000:%04X", port)
        let suffix = String(format: ":%04X", port)
        var inodes: Set<String> = []
        for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to the end: procfs gives a table one page per read, and its size as 0.
            guard let handle = FileHandle(forReadingAtPath: file), let bytes = try? handle.readToEnd() else { continue }
            try? handle.close()
            let table = String(decoding: bytes, as: UTF8.self)
            for line in table.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                guard fields.count > 9, fields[3] == "0A" else { continue }
                let address = fields[1]
                guard address == local || address == any || (file.hasSuffix("6") && address.hasSuffix(suffix)) else { continue }
                inodes.insert("socket:[\(fields[9])]")
            }
        }
        guard !inodes.isEmpty else { return false }
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for name in processes {
            guard let pid = pid_t(name), let fields = statFields(pid), fields.count > 4, fields[4] == String(group) else { continue }
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            for descriptor in descriptors {
                if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)"),
                   inodes.contains(target) { return true }
            }
        }
        return false
    }

    private static func hasExited(_ pid: pid_t) -> Bool {
        guard let fields = statFields(pid) else { return true }
        return fields.count < 3 || fields[2] == "Z" || fields[2] == "X"
    }

    /// /proc/PID/stat split into fields, the command name (which may hold spaces) kept as one:
    /// [pid, comm, state, ppid, pgrp, ...].
    private static func statFields(_ pid: pid_t) -> [String]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close
        else { return nil }
        let head = text[..<open].trimmingCharacters(in: .whitespaces)
        let comm = String(text[text.index(after: open)..<close])
        let rest = text[text.index(after: close)...].split(separator: " ").map(String.init)
        return [head, comm] + rest
    }

    private static func terminateGroup(_ pid: pid_t) {
        // The leader is not reaped before the KILL below, so the group id cannot be reused meanwhile.
        if kill(-pid, SIGTERM) == 0 {
            let deadline = Posix.now() + 5
            while !hasExited(pid) && Posix.now() < deadline { usleep(5_000) }
        }
        kill(-pid, SIGKILL)  // members that outlive the leader (vsftpd sessions, workers) and a stuck leader
        _ = Posix.wait(pid: pid, deadline: Posix.now() + 5)
        let deadline = Posix.now() + 2
        while !runningMembers(ofGroup: pid).isEmpty && Posix.now() < deadline { usleep(5_000) }
    }
}

extension ForegroundServer {
    /// The first executable called one of `names` in $`variable`, PATH, /usr/sbin or /sbin.
    package static func findBinary(_ names: [String], variable: String) -> String? {
        if let override = getenv(variable), override.pointee != 0 { return String(cString: override) }
        for name in names {
            if let path = SwgetProcess.findExecutable(name, extraDirectories: ["/usr/sbin", "/usr/local/sbin", "/sbin"]) {
                return path
            }
        }
        return nil
    }

    /// `path` made absolute and checked for the characters no server config format here can quote
    /// (double quote, backslash, control characters).
    package static func configPath(_ path: String) throws -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        guard !absolute.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7f }) else {
            throw RealServerError("path not usable in a server configuration (quote, backslash or control character): \(path)")
        }
        return absolute
    }

    /// Throws unless both TLS paths are given or neither.
    package static func tlsPair(_ certificate: String?, _ key: String?) throws -> (certificate: String, key: String)? {
        switch (certificate, key) {
        case (nil, nil): return nil
        case let (certificate?, key?): return (try configPath(certificate), try configPath(key))
        default: throw RealServerError("give both tlsCertificatePath and tlsKeyPath, or neither")
        }
    }
}
