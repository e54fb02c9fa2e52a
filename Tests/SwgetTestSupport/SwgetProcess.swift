import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What one run of a subprocess left behind.
public struct SwgetResult: Sendable {
    /// The exit status; 128 + N when the process was killed by signal N (the shell's convention).
    public let status: Int32
    /// Everything written to standard output.
    public let stdout: [UInt8]
    /// Everything written to standard error (invalid UTF-8 repaired).
    public let stderr: String

    public init(status: Int32, stdout: [UInt8], stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    /// Standard output as text (invalid UTF-8 repaired).
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

/// Why a subprocess could not be run to its end.
public enum SwgetProcessError: Error, CustomStringConvertible {
    /// The executable could not be started (missing, not executable...).
    case cannotStart(executable: String, reason: String)
    /// It did not finish in time; it was killed (with its whole process group). Output so far is kept.
    case timedOut(arguments: [String], after: Duration, stdout: [UInt8], stderr: String)
    /// A system call failed while setting up or watching the process.
    case systemCall(String, errno: Int32)

    public var description: String {
        switch self {
        case .cannotStart(let executable, let reason):
            return "cannot start \(executable): \(reason)"
        case .timedOut(let arguments, let after, let stdout, let stderr):
            return "timed out after \(after) and killed: \(arguments.joined(separator: " "))\n"
                + "stdout (\(stdout.count) bytes): \(String(decoding: stdout.prefix(2000), as: UTF8.self))\n"
                + "stderr: \(stderr.prefix(4000))"
        case .systemCall(let name, let code):
            return "\(name) failed: \(String(cString: strerror(code)))"
        }
    }
}

/// Runs the built `swget` binary as a user would: for end-to-end tests.
public enum SwgetProcess {
    /// Path of the built swget binary: beside the running test executable (the directory of
    /// /proc/self/exe, e.g. .build/debug or .build/x86_64-unknown-linux-gnu/debug) + "/swget";
    /// environment variable SWGET_BINARY overrides it.
    public static var binaryPath: String {
        if let override = getenv("SWGET_BINARY"), override.pointee != 0 {
            return String(cString: override)
        }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let executable = length > 0 ? String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                                    : CommandLine.arguments[0]
        return (executable as NSString).deletingLastPathComponent + "/swget"
    }

    /// Runs swget with `arguments` in `directory`, with a clean environment (only PATH, HOME set to
    /// a fresh temporary directory, LANG=C.UTF-8, plus `environment`, which may override them),
    /// standard input from /dev/null unless `stdin` is given, and a timeout after which swget is
    /// killed and `SwgetProcessError.timedOut` thrown. Standard output and error are read
    /// concurrently and captured fully.
    public static func run(
        _ arguments: [String],
        in directory: String,
        environment: [String: String] = [:],
        stdin: [UInt8]? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> SwgetResult {
        let binary = binaryPath
        guard access(binary, X_OK) == 0 else {
            throw SwgetProcessError.cannotStart(
                executable: binary,
                reason: "no executable there (build the package first, or set SWGET_BINARY)"
            )
        }
        return try await run(executable: binary, arguments, in: directory, environment: environment,
                             stdin: stdin, timeout: timeout)
    }

    /// The same runner for any executable (a path; no PATH search): what `run(_:in:...)` uses, and
    /// what tests use for other tools (curl, openssl...).
    package static func run(
        executable: String,
        _ arguments: [String],
        in directory: String,
        environment: [String: String] = [:],
        stdin: [UInt8]? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> SwgetResult {
        // The blocking poll loop runs on its own thread, never on the cooperative pool.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SwgetResult, Error>) in
            let thread = Thread {
                do {
                    continuation.resume(returning: try runBlocking(
                        executable: executable, arguments: arguments, directory: directory,
                        environment: environment, stdin: stdin, timeout: timeout))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.name = "swget-test-subprocess"
            thread.start()
        }
    }

    /// The first executable called `name` in PATH (or the fallback directories), if any.
    package static func findExecutable(_ name: String, extraDirectories: [String] = ["/usr/sbin", "/sbin"]) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init) + extraDirectories where !directory.isEmpty {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    package static func runBlocking(
        executable: String, arguments: [String], directory: String,
        environment extras: [String: String], stdin: [UInt8]?, timeout: Duration
    ) throws -> SwgetResult {
        // A clean environment: nothing of the test runner's (proxies, HOME's dot files, locale) leaks in.
        var environment = [
            "PATH": getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
        ]
        var temporaryHome: String?
        if extras["HOME"] == nil {
            temporaryHome = try makeTemporaryDirectory(prefix: "swget-home")
            environment["HOME"] = temporaryHome
        }
        environment.merge(extras) { _, new in new }
        defer { if let temporaryHome { try? FileManager.default.removeItem(atPath: temporaryHome) } }

        let output = try Posix.pipe()
        let errors = try Posix.pipe()
        let input = stdin == nil ? nil : try Posix.pipe()
        var parentEnds = [output.read, errors.read] + (input.map { [$0.write] } ?? [])
        var childEnds = [output.write, errors.write] + (input.map { [$0.read] } ?? [])
        defer { for fd in parentEnds + childEnds { close(fd) } }

        let pid = try Posix.spawn(
            executable: executable, arguments: arguments, environment: environment, directory: directory,
            stdin: input?.read, stdout: output.write, stderr: errors.write)
        for fd in childEnds { close(fd) }
        childEnds = []

        let deadline = Posix.now() + timeout.seconds
        let collected = Posix.collect(
            stdout: output.read, stderr: errors.read, stdin: input?.write, input: stdin ?? [], deadline: deadline)
        // The pipes' descriptors were closed by collect.
        parentEnds = []

        let status = collected.timedOut ? nil : Posix.wait(pid: pid, deadline: deadline)
        guard let status else {
            kill(-pid, SIGKILL)  // its own process group: swget and anything it started
            _ = Posix.wait(pid: pid, deadline: Posix.now() + 10)
            throw SwgetProcessError.timedOut(
                arguments: [executable] + arguments, after: timeout, stdout: collected.stdout,
                stderr: String(decoding: collected.stderr, as: UTF8.self))
        }
        return SwgetResult(status: status, stdout: collected.stdout,
                           stderr: String(decoding: collected.stderr, as: UTF8.self))
    }
}

/// Makes a fresh, empty directory under /tmp (mkdtemp) and returns its path.
public func makeTemporaryDirectory(prefix: String = "swget-test") throws -> String {
    var template = Array("/tmp/\(prefix).XXXXXX".utf8CString)
    guard mkdtemp(&template) != nil else {
        throw SwgetProcessError.systemCall("mkdtemp", errno: errno)
    }
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// The few POSIX calls the test helpers need to run children safely from a multi-threaded test process:
/// close-on-exec pipes (so parallel tests' children never inherit each other's pipe ends), posix_spawn
/// with a working directory and its own process group, and a poll loop reading both outputs.
enum Posix {
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    // glibc has these, but Swift's Glibc module does not import the GNU extensions: look them up.
    private static let pipe2Function: Pipe2? = dlsym(nil, "pipe2").map { unsafeBitCast($0, to: Pipe2.self) }
    private static let addChdir: AddChdir? = dlsym(nil, "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: AddChdir.self) }
    private static let addClosefrom: AddClosefrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddClosefrom.self) }

    /// Seconds on the monotonic clock.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// A pipe whose both ends are close-on-exec.
    static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        if let pipe2Function {
            guard pipe2Function(&fds, O_CLOEXEC) == 0 else { throw SwgetProcessError.systemCall("pipe2", errno: errno) }
        } else {
            guard Glibc.pipe(&fds) == 0 else { throw SwgetProcessError.systemCall("pipe", errno: errno) }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        }
        return (fds[0], fds[1])
    }

    /// Starts `executable` in `directory` as the leader of a new process group, with exactly
    /// `environment`, the given descriptors as 0/1/2 (nil: /dev/null), no other descriptors,
    /// no blocked signals and default signal handlers.
    static func spawn(
        executable: String, arguments: [String], environment: [String: String], directory: String?,
        stdin: Int32?, stdout: Int32?, stderr: Int32?
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (source, target, flags) in [(stdin, Int32(0), O_RDONLY), (stdout, 1, O_WRONLY), (stderr, 2, O_WRONLY)] {
            if let source {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", flags, 0)
            }
        }
        if let addClosefrom { _ = addClosefrom(&actions, 3) }
        if let directory {
            guard let addChdir else {
                throw SwgetProcessError.cannotStart(executable: executable, reason: "posix_spawn cannot change directory here")
            }
            _ = addChdir(&actions, directory)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        for signal in [SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM] {
            sigaddset(&defaultSignals, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }

        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw SwgetProcessError.cannotStart(executable: executable, reason: String(cString: strerror(result)))
        }
        return pid
    }

    /// Reads both outputs until both reach end of file (or `deadline`), feeding `input` to `stdin`
    /// meanwhile. Closes all three descriptors.
    static func collect(
        stdout: Int32, stderr: Int32, stdin: Int32?, input: [UInt8], deadline: Double
    ) -> (stdout: [UInt8], stderr: [UInt8], timedOut: Bool) {
        var out: [UInt8] = [], err: [UInt8] = []
        var open: [Int32: Bool] = [stdout: true, stderr: true]
        var writer = stdin
        var written = 0
        if let writer {
            _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) | O_NONBLOCK)
            if input.isEmpty { close(writer) }
        }
        if input.isEmpty { writer = nil }

        // A child that stops reading its input must not kill the test process with SIGPIPE:
        // block it on this thread (the write then fails with EPIPE) and discard it if raised.
        var pipeSignal = sigset_t(), previousMask = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previousMask)
        defer {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var zero = timespec()
                _ = sigtimedwait(&pipeSignal, nil, &zero)
            }
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        }

        var buffer = [UInt8](repeating: 0, count: 65536)
        var timedOut = false
        while open.values.contains(true) || writer != nil {
            let remaining = deadline - now()
            if remaining <= 0 { timedOut = true; break }
            var fds = open.filter(\.value).map { pollfd(fd: $0.key, events: Int16(POLLIN), revents: 0) }
            if let writer { fds.append(pollfd(fd: writer, events: Int16(POLLOUT), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining * 1000, 1000)) + 1)
            if ready < 0 && errno != EINTR { break }
            for entry in fds where entry.revents != 0 {
                if entry.fd == writer {
                    let chunk = input[written...].prefix(65536)
                    let count = chunk.withUnsafeBytes { write(entry.fd, $0.baseAddress, $0.count) }
                    if count > 0 { written += count }
                    if (count < 0 && errno != EAGAIN && errno != EINTR) || written == input.count {
                        close(entry.fd)
                        writer = nil
                    }
                    continue
                }
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    if entry.fd == stdout { out += buffer[0..<count] } else { err += buffer[0..<count] }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    open[entry.fd] = false
                }
            }
        }
        close(stdout)
        close(stderr)
        if let writer { close(writer) }
        return (out, err, timedOut)
    }

    /// The exit status of `pid` once it has exited (128 + N for signal N), or nil at `deadline`.
    static func wait(pid: pid_t, deadline: Double) -> Int32? {
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return decode(status) }
            if result < 0 && errno != EINTR { return 0 }  // already reaped elsewhere
            if now() >= deadline { return nil }
            usleep(2000)
        }
    }

    /// Non-blocking: the exit status if `pid` has exited.
    static func exited(pid: pid_t) -> Int32? {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid ? decode(status) : nil
    }

    private static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
