import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why nginx could not be started.
public struct NginxError: Error, CustomStringConvertible {
    public let description: String
}

/// A real nginx on free loopback ports, with a config written at test time; tests stop what they start.
///
/// ```swift
/// let nginx = try Nginx.start(root: directory)
/// defer { nginx.stop() }
/// // GET \(nginx.httpURL)/file.bin
/// ```
public final class Nginx: Sendable {
    /// The plain HTTP port on 127.0.0.1.
    public let httpPort: Int
    /// The HTTPS port on 127.0.0.1, when a certificate was given.
    public let httpsPort: Int?
    /// The temporary directory holding nginx.conf, the pid file, temp paths and logs (removed by `stop()`).
    public let directory: String
    /// The directory served.
    public let root: String

    private let pid: pid_t
    private let state = StopState()

    /// "http://127.0.0.1:PORT"
    public var httpURL: String { "http://127.0.0.1:\(httpPort)" }
    /// "https://localhost:PORT" (the certificate must name localhost), when HTTPS is on.
    public var httpsURL: String? { httpsPort.map { "https://localhost:\($0)" } }

    private init(httpPort: Int, httpsPort: Int?, directory: String, root: String, pid: pid_t) {
        self.httpPort = httpPort
        self.httpsPort = httpsPort
        self.directory = directory
        self.root = root
        self.pid = pid
    }

    deinit { stop() }

    /// Starts nginx serving `root` (static files; Range requests, ETag and Last-Modified work out of
    /// the box) on 127.0.0.1: an HTTP port, and an HTTPS port when `tlsCertificatePath` and
    /// `tlsKeyPath` are given (PEM files; the certificate may be followed by its chain).
    ///
    /// Besides the files themselves:
    /// - `/gzip/NAME` serves NAME with `gzip on; gzip_types *;` (compressed when the request accepts gzip),
    /// - `/static-gz/NAME` serves NAME.gz as NAME with `Content-Encoding: gzip` to clients that accept
    ///   gzip (`gzip_static on;`), NAME itself to the others,
    /// - `/redirect/NAME` answers 302 with `Location: /NAME` (query string kept),
    /// - `/cd/NAME` serves NAME with `Content-Disposition: attachment; filename="cd-NAME"`,
    /// - `/slow/NAME` serves NAME at 1 MB/s (`limit_rate 1m`).
    ///
    /// Throws a clear error when no nginx binary is found (env NGINX_BINARY, PATH, /usr/sbin/nginx):
    /// the README's test command installs it. Free ports are found by binding port 0; if nginx still
    /// loses a race for them, it is started again on new ports (5 attempts).
    public static func start(root: String, tlsCertificatePath: String? = nil, tlsKeyPath: String? = nil) async throws -> Nginx {
        guard let binary = findBinary() else {
            throw NginxError(description: "nginx not found (looked at $NGINX_BINARY, in PATH and at /usr/sbin/nginx); "
                + "install it with `apt-get install -y nginx-light` (the README's test command does)")
        }
        guard (tlsCertificatePath == nil) == (tlsKeyPath == nil) else {
            throw NginxError(description: "Nginx.start: give both tlsCertificatePath and tlsKeyPath, or neither")
        }
        let tls = tlsCertificatePath.map { (certificate: absolute($0), key: absolute(tlsKeyPath!)) }
        let root = absolute(root)

        var attempt = 0
        while true {
            attempt += 1
            let directory = try makeTemporaryDirectory(prefix: "swget-nginx")
            let httpPort = try freePort()
            var httpsPort: Int?
            if tls != nil {
                repeat { httpsPort = try freePort() } while httpsPort == httpPort
            }
            let config = configuration(directory: directory, root: root, httpPort: httpPort, httpsPort: httpsPort, tls: tls)
            try config.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)

            let log = open(directory + "/stderr.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard log >= 0 else { throw SwgetProcessError.systemCall("open \(directory)/stderr.log", errno: errno) }
            let pid: pid_t
            do {
                defer { close(log) }
                pid = try Posix.spawn(
                    executable: binary,
                    arguments: ["-p", directory + "/", "-c", directory + "/nginx.conf", "-e", directory + "/error.log",
                                "-g", "daemon off;"],
                    environment: ["PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
                    directory: directory, stdin: nil, stdout: log, stderr: log)
            }

            // Ready when every port accepts a connection; failed when nginx exits first; 5 s at most.
            let deadline = Posix.now() + 5
            var exited = false
            while Posix.now() < deadline {
                if Posix.exited(pid: pid) != nil { exited = true; break }
                if accepts(port: httpPort) && (httpsPort.map { accepts(port: $0) } ?? true) {
                    return Nginx(httpPort: httpPort, httpsPort: httpsPort, directory: directory, root: root, pid: pid)
                }
                // Not usleep, and no spinning once cancelled (see ForegroundServer.launch).
                guard (try? await Task.sleep(for: .milliseconds(20))) != nil else { break }
            }
            if !exited { terminate(pid: pid) }
            let logs = readLogs(directory)
            try? FileManager.default.removeItem(atPath: directory)
            if logs.contains("Address already in use") && attempt < 5 { continue }
            throw NginxError(description: exited
                ? "nginx exited at startup (\(binary)):\n\(logs)"
                : "nginx did not accept connections within 5 s (\(binary)):\n\(logs)")
        }
    }

    /// Stops nginx (TERM, then KILL after 5 s) and removes its temporary directory. Idempotent.
    public func stop() {
        guard state.markStopped() else { return }
        Self.terminate(pid: pid)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// nginx's error log so far (for a failing test's message).
    public func errorLog() -> String {
        (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
    }

    /// The access log so far, one line per request:
    /// `METHOD URI STATUS BODY_BYTES range="RANGE" if_range="IF-RANGE" ae="ACCEPT-ENCODING"`
    /// (nginx writes it when a request completes).
    public func accessLog() -> String {
        (try? String(contentsOfFile: directory + "/access.log", encoding: .utf8)) ?? ""
    }

    // MARK: - Internals

    private static func findBinary() -> String? {
        if let override = getenv("NGINX_BINARY"), override.pointee != 0 { return String(cString: override) }
        return SwgetProcess.findExecutable("nginx", extraDirectories: ["/usr/sbin", "/usr/local/sbin", "/sbin"])
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    private static func configuration(
        directory: String, root: String, httpPort: Int, httpsPort: Int?, tls: (certificate: String, key: String)?
    ) -> String {
        // Running as root, workers would otherwise switch to nobody and could not read 0700 temp dirs.
        let user = geteuid() == 0 ? "user root;" : ""
        var listen = "listen 127.0.0.1:\(httpPort);"
        if let httpsPort, let tls {
            listen += """

                    listen 127.0.0.1:\(httpsPort) ssl;
                    ssl_certificate "\(tls.certificate)";
                    ssl_certificate_key "\(tls.key)";
            """
        }
        return """
        # Written by SwgetTestSupport.Nginx for one test; removed by stop().
        \(user)
        worker_processes 1;
        pid "\(directory)/nginx.pid";
        error_log "\(directory)/error.log" info;
        events { worker_connections 512; }
        http {
            log_format swget '$request_method $request_uri $status $body_bytes_sent range="$http_range" if_range="$http_if_range" ae="$http_accept_encoding"';
            access_log "\(directory)/access.log" swget;
            sendfile on;
            keepalive_timeout 10;
            default_type application/octet-stream;
            types {
                text/html html htm;
                text/plain txt;
                application/json json;
                application/gzip gz;
            }
            client_body_temp_path "\(directory)/client_body";
            proxy_temp_path "\(directory)/proxy";
            fastcgi_temp_path "\(directory)/fastcgi";
            uwsgi_temp_path "\(directory)/uwsgi";
            scgi_temp_path "\(directory)/scgi";

            server {
                \(listen)
                server_name localhost;
                root "\(root)";

                location /gzip/ {
                    alias "\(root)/";
                    gzip on;
                    gzip_types *;
                    gzip_min_length 0;
                    gzip_proxied any;
                    gzip_vary on;
                }
                location /static-gz/ {
                    alias "\(root)/";
                    gzip_static on;
                    gzip_vary on;
                }
                location ~ ^/redirect/(?<swget_target>.*)$ {
                    return 302 /$swget_target$is_args$args;
                }
                location ~ ^/cd/(?<swget_name>.+)$ {
                    alias "\(root)/$swget_name";
                    add_header Content-Disposition "attachment; filename=\\"cd-$swget_name\\"";
                }
                location /slow/ {
                    alias "\(root)/";
                    limit_rate 1m;
                }
            }
        }

        """
    }

    private static func readLogs(_ directory: String) -> String {
        ["stderr.log", "error.log"].compactMap { name -> String? in
            guard let text = try? String(contentsOfFile: directory + "/" + name, encoding: .utf8), !text.isEmpty else {
                return nil
            }
            return "--- \(name):\n\(text)"
        }.joined(separator: "\n")
    }

    /// TERM (fast shutdown: the master stops its workers, then exits); KILL for the whole group after 5 s.
    private static func terminate(pid: pid_t) {
        guard kill(pid, SIGTERM) == 0 else {
            _ = Posix.wait(pid: pid, deadline: Posix.now())  // already gone: reap it if it is ours
            return
        }
        if Posix.wait(pid: pid, deadline: Posix.now() + 5) == nil {
            kill(-pid, SIGKILL)  // nginx runs in its own process group: master and workers
            _ = Posix.wait(pid: pid, deadline: Posix.now() + 5)
        }
    }

    /// A port on 127.0.0.1 that was free a moment ago (bound to port 0, then closed).
    package static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SwgetProcessError.systemCall("socket", errno: errno) }
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw SwgetProcessError.systemCall("bind 127.0.0.1:0", errno: errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A loopback port where connections are refused for as long as the value is kept: a socket
    /// bound there (without SO_REUSEADDR) but not listening. A port found free by
    /// ``freePort()`` and let go can be taken by a server another test starts meanwhile, and the
    /// test that wanted a refusal then talks to that server; this one cannot be taken.
    package static func refusingPort() throws -> RefusingPort {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SwgetProcessError.systemCall("socket", errno: errno) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw SwgetProcessError.systemCall("bind 127.0.0.1:0", errno: code)
        }
        return RefusingPort(fd: fd, port: Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    package static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }
}

/// Whether `stop()` ran already (stop may be called from any thread, and again from deinit).
private final class StopState: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false

    /// True the first time only.
    func markStopped() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if stopped { return false }
        stopped = true
        return true
    }
}

/// A port held so that connecting to it is refused (``Nginx/refusingPort()``); closed when the
/// value goes away. Keep it alive for the whole test (`defer { withExtendedLifetime(...) }` or
/// use ``port`` at the end).
package final class RefusingPort: Sendable {
    package let port: Int
    private let fd: Int32

    init(fd: Int32, port: Int) {
        self.fd = fd
        self.port = port
    }

    deinit { close(fd) }
}
