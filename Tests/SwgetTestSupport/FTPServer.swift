import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A real FTP server (Debian's vsftpd) on a free loopback port serving a directory, for the FTP
/// issue's end-to-end tests: anonymous read, virtual users with passwords, passive (EPSV/PASV) and
/// active (EPRT/PORT) data connections, `SIZE`, `MDTM`, `REST`, and FTPS (explicit `AUTH TLS` or
/// implicit). vsftpd has no `MLSD`/`MLST`: directory listings are `LIST`/`NLST` only. Tests stop
/// what they start.
///
/// ```swift
/// let ftp = try FTPServer.start(root: directory, users: ["alice": "secret"])
/// defer { ftp.stop() }
/// // swget \(ftp.url)/file.bin   ·   swget ftp://alice:secret@127.0.0.1:\(ftp.port)/file.bin
/// ```
///
/// Requirements and side effects (vsftpd needs root to authenticate and chroot):
/// - the test process runs as root (CI does); otherwise `start` throws;
/// - the system account `ftp` exists (Debian's vsftpd package creates it): anonymous sessions and
///   virtual users both run as `ftp`, chrooted into `root`;
/// - `root` and everything below it are made readable by others (directories o+rx, files o+r):
///   the test's own 0700 temporary directories would be closed to `ftp`;
/// - with `users`, a PAM service file `/etc/pam.d/swget-ftp-HEX` (pam_pwdfile over a password
///   file in the temporary directory) exists while the server runs and is removed by `stop()`:
///   vsftpd only authenticates through PAM, PAM only reads services from /etc/pam.d, and one file
///   per server keeps parallel tests apart. No system user is created.
public final class FTPServer: Sendable {
    /// The control port on 127.0.0.1.
    public let port: Int
    /// The passive data ports vsftpd picks from (below the kernel's ephemeral range, so other
    /// tests' clients rarely hold one; vsftpd tries another when one is taken).
    public let passivePorts: ClosedRange<Int>
    /// The directory served (the root every session sees).
    public let root: String
    /// Whether the control connection starts with TLS (`ftps://`).
    public let implicitTLS: Bool
    /// The PAM service (`/etc/pam.d/NAME`) of the virtual users, when there are any.
    package let pamService: String?

    private let server: ForegroundServer

    /// "ftp://127.0.0.1:PORT", or "ftps://127.0.0.1:PORT" with implicit TLS.
    public var url: String { "\(implicitTLS ? "ftps" : "ftp")://127.0.0.1:\(port)" }
    /// The temporary directory holding vsftpd.conf, the password file and the log (removed by `stop()`).
    public var directory: String { server.directory }

    private init(port: Int, passivePorts: ClosedRange<Int>, root: String, implicitTLS: Bool, pamService: String?,
                 server: ForegroundServer) {
        self.port = port
        self.passivePorts = passivePorts
        self.root = root
        self.implicitTLS = implicitTLS
        self.pamService = pamService
        self.server = server
    }

    /// Starts vsftpd in the foreground serving `root` read-only on 127.0.0.1.
    ///
    /// - `users`: virtual accounts (name → password) besides `anonymous`/`ftp` (any password).
    ///   Names: 1...32 of [-A-Za-z0-9._]; passwords: no control characters.
    /// - `tlsCertificatePath`/`tlsKeyPath` (PEM; the certificate may be followed by its chain): FTPS.
    ///   Explicit by default (`AUTH TLS`, `PBSZ 0`, `PROT P`; plain sessions still allowed unless
    ///   `requireTLS`), implicit with `implicitTLS` (TLS from the first byte).
    /// - `requireTLS`: refuse logins and data transfers without TLS (anonymous included).
    /// - `requireSessionReuse`: data connections must resume the control connection's TLS session
    ///   (vsftpd's own default and a common deployment; off here unless asked).
    ///
    /// Failed logins answer `530` at once (no delay). Throws `RealServerError` when vsftpd is
    /// missing (env VSFTPD_BINARY, PATH, /usr/sbin), the process is not root, the `ftp` account is
    /// missing, or vsftpd does not start.
    public static func start(
        root: String, users: [String: String] = [:],
        tlsCertificatePath: String? = nil, tlsKeyPath: String? = nil,
        implicitTLS: Bool = false, requireTLS: Bool = false, requireSessionReuse: Bool = false
    ) async throws -> FTPServer {
        guard let binary = ForegroundServer.findBinary(["vsftpd"], variable: "VSFTPD_BINARY") else {
            throw RealServerError("vsftpd not found (looked at $VSFTPD_BINARY, in PATH and /usr/sbin); "
                + "install it with `scripts/install-deps --test` (Debian: vsftpd)")
        }
        guard geteuid() == 0 else {
            throw RealServerError("FTPServer needs root (vsftpd authenticates through PAM and chroots); run the tests as root")
        }
        guard getpwnam("ftp") != nil else {
            throw RealServerError("FTPServer needs the system account `ftp` (Debian's vsftpd package creates it: reinstall vsftpd)")
        }
        let tls = try ForegroundServer.tlsPair(tlsCertificatePath, tlsKeyPath)
        guard tls != nil || (!implicitTLS && !requireTLS && !requireSessionReuse) else {
            throw RealServerError("FTPServer.start: implicitTLS, requireTLS and requireSessionReuse need a certificate and key")
        }
        for (user, password) in users {
            let nameOK = (1...32).contains(user.count)
                && user.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }
                && !["anonymous", "ftp"].contains(user.lowercased())
            guard nameOK, !password.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
                throw RealServerError("FTPServer.start: user names are 1...32 of [-A-Za-z0-9._] (not anonymous/ftp), passwords without control characters: \(user.debugDescription)")
            }
        }
        let root = try ForegroundServer.configPath(root)
        try openToOthers(root)
        let passivePorts = Self.passiveRange()
        var port = 0
        var pamService: String?
        let server = try await ForegroundServer.launch(name: "vsftpd", binary: binary, logs: ["vsftpd.log"]) { directory in
            port = try Nginx.freePort()
            // The unprivileged pre-login process is chrooted into an empty root-owned directory.
            let empty = directory + "/empty"
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o755])
            var cleanup: (@Sendable () -> Void)?
            var service = "swget-ftp-none"  // unused without users: vsftpd then refuses every non-anonymous login
            if !users.isEmpty {
                try passwordFile(users).write(toFile: directory + "/passwd", atomically: true, encoding: .utf8)
                chmod(directory + "/passwd", 0o600)
                service = try createPAMService("""
                    # Written by SwgetTestSupport.FTPServer for one test server; removed by its stop().
                    auth required pam_pwdfile.so pwdfile=\(directory)/passwd nodelay
                    account required pam_permit.so

                    """)
                let pam = "/etc/pam.d/" + service
                cleanup = { unlink(pam) }
                pamService = service
            }
            let config = configuration(
                directory: directory, root: root, port: port, passivePorts: passivePorts, service: service,
                localUsers: !users.isEmpty, tls: tls, implicitTLS: implicitTLS, requireTLS: requireTLS,
                requireSessionReuse: requireSessionReuse)
            try config.write(toFile: directory + "/vsftpd.conf", atomically: true, encoding: .utf8)
            return .init(arguments: [directory + "/vsftpd.conf"], ports: [port], cleanup: cleanup)
        }
        return FTPServer(port: port, passivePorts: passivePorts, root: root, implicitTLS: implicitTLS,
                         pamService: pamService, server: server)
    }

    /// The server's process group (its leader's pid), for tests checking that `stop()` left nothing running.
    package var processGroup: pid_t { server.pid }

    /// Stops vsftpd and every session process, removes the PAM service file and the temporary
    /// directory. Idempotent.
    public func stop() { server.stop() }

    /// vsftpd's log so far: every command and reply (`FTP command: Client "127.0.0.1", "RETR f"`,
    /// passwords masked), logins (`OK LOGIN`, `FAIL LOGIN`) and transfers (`OK DOWNLOAD: ... N bytes`).
    public func log() -> String { server.read("vsftpd.log") }

    /// The commands clients sent, in order ("USER alice", "PASS <password>", "EPSV", "REST 100"...).
    /// Parallel sessions interleave.
    public func commands() -> [String] {
        log().split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "FTP command: Client \""),
                  let comma = line[range.upperBound...].range(of: "\", \"") else { return nil }
            return String(line[comma.upperBound...].dropLast())
        }
    }

    // MARK: - Internals

    /// A block of 100 ports below the ephemeral range (/proc/sys/net/ipv4/ip_local_port_range),
    /// at a random place, so parallel servers rarely share one.
    private static func passiveRange() -> ClosedRange<Int> {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let low = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { Int($0) } ?? 32768
        let top = max(low - 100, 10_100)
        let base = Int.random(in: 10_000...top)
        return base...(base + 99)
    }

    /// Makes `root` and everything below readable by others (directories o+rx, files o+r).
    private static func openToOthers(_ root: String) throws {
        func widen(_ path: String, directory: Bool) {
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFLNK else { return }
            chmod(path, (info.st_mode & 0o7777) | (directory ? 0o005 : 0o004))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw RealServerError("FTPServer.start: \(root) is not a directory")
        }
        widen(root, directory: true)
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            let path = root + "/" + relative
            var inner: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &inner)
            widen(path, directory: inner.boolValue)
        }
    }

    /// Creates `/etc/pam.d/swget-ftp-HEX` (O_EXCL, a fresh random lower-case name: Linux-PAM
    /// lower-cases service names and strips any directory from them) and returns the service name.
    private static func createPAMService(_ text: String) throws -> String {
        for _ in 0..<5 {
            let service = "swget-ftp-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let fd = open("/etc/pam.d/" + service, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd < 0 {
                if errno == EEXIST { continue }
                throw SwgetProcessError.systemCall("open /etc/pam.d/\(service)", errno: errno)
            }
            defer { close(fd) }
            let bytes = Array(text.utf8)
            guard write(fd, bytes, bytes.count) == bytes.count else {
                let code = errno
                unlink("/etc/pam.d/" + service)
                throw SwgetProcessError.systemCall("write /etc/pam.d/\(service)", errno: code)
            }
            return service
        }
        throw RealServerError("FTPServer: no free PAM service name in /etc/pam.d after 5 tries")
    }

    /// pam_pwdfile lines: `user:crypt(password)` with SHA-512 crypt and a random salt.
    private static func passwordFile(_ users: [String: String]) throws -> String {
        guard let handle = dlopen("libcrypt.so.1", RTLD_NOW), let symbol = dlsym(handle, "crypt") else {
            throw RealServerError("FTPServer: libcrypt.so.1 not loadable (Debian: libcrypt1)")
        }
        typealias Crypt = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>) -> UnsafeMutablePointer<CChar>?
        let crypt = unsafeBitCast(symbol, to: Crypt.self)
        let alphabet = Array("./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        return try users.sorted { $0.key < $1.key }.map { user, password in
            let salt = "$6$" + String((0..<16).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] }) + "$"
            guard let hashed = crypt(password, salt).map({ String(cString: $0) }), hashed.hasPrefix("$6$") else {
                throw RealServerError("FTPServer: crypt(3) refused to hash a password")
            }
            return "\(user):\(hashed)\n"
        }.joined()
    }

    private static func configuration(
        directory: String, root: String, port: Int, passivePorts: ClosedRange<Int>, service: String,
        localUsers: Bool, tls: (certificate: String, key: String)?, implicitTLS: Bool, requireTLS: Bool,
        requireSessionReuse: Bool
    ) -> String {
        func flag(_ value: Bool) -> String { value ? "YES" : "NO" }
        var lines = [
            "# Written by SwgetTestSupport.FTPServer for one test; removed by stop().",
            "listen=YES", "listen_ipv6=NO", "listen_address=127.0.0.1", "listen_port=\(port)", "background=NO",
            "anonymous_enable=YES", "anon_root=\(root)", "no_anon_password=YES", "ftp_username=ftp",
            "local_enable=\(flag(localUsers))", "guest_enable=YES", "guest_username=ftp", "local_root=\(root)",
            "chroot_local_user=YES", "pam_service_name=\(service)", "write_enable=NO",
            "pasv_enable=YES", "pasv_min_port=\(passivePorts.lowerBound)", "pasv_max_port=\(passivePorts.upperBound)",
            "port_enable=YES", "connect_from_port_20=NO",
            "secure_chroot_dir=\(directory)/empty",
            "xferlog_enable=YES", "log_ftp_protocol=YES", "vsftpd_log_file=\(directory)/vsftpd.log",
            "delay_failed_login=0", "delay_successful_login=0", "max_login_fails=10",
            // Namespaces and seccomp are often unavailable inside containers.
            "seccomp_sandbox=NO", "isolate=NO", "isolate_network=NO",
            "idle_session_timeout=600", "data_connection_timeout=300",
        ]
        if let tls {
            lines += [
                "ssl_enable=YES", "rsa_cert_file=\(tls.certificate)", "rsa_private_key_file=\(tls.key)",
                "ssl_ciphers=HIGH", "allow_anon_ssl=YES", "implicit_ssl=\(flag(implicitTLS))",
                "force_local_logins_ssl=\(flag(requireTLS))", "force_local_data_ssl=\(flag(requireTLS))",
                "force_anon_logins_ssl=\(flag(requireTLS))", "force_anon_data_ssl=\(flag(requireTLS))",
                "require_ssl_reuse=\(flag(requireSessionReuse))",
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
