import Foundation

/// A real HTTP forward proxy (Debian's tinyproxy ≥ 1.11) on a free loopback port, for the proxy
/// issue's end-to-end tests: absolute-form requests for `http://` URLs and `CONNECT` tunnels to any
/// port (the test servers listen on high ports), optionally behind Basic authentication (RFC 7617,
/// a `407` with `Proxy-Authenticate: Basic realm="Tinyproxy"` without it). Tests stop what they start.
///
/// ```swift
/// let proxy = try ForwardProxy.start(user: "alice", password: "secret")
/// defer { proxy.stop() }
/// // swget --proxy \(proxy.url) ...   or   env http_proxy=\(proxy.urlWithCredentials!)
/// #expect(proxy.requestLines().contains("CONNECT localhost:\(port) HTTP/1.1"))
/// ```
public final class ForwardProxy: Sendable {
    /// The proxy's port on 127.0.0.1.
    public let port: Int
    /// The Basic credentials it demands, if any.
    public let user: String?
    public let password: String?

    private let server: ForegroundServer

    /// "http://127.0.0.1:PORT"
    public var url: String { "http://127.0.0.1:\(port)" }
    /// "http://USER:PASSWORD@127.0.0.1:PORT" when the proxy demands credentials.
    public var urlWithCredentials: String? {
        guard let user, let password else { return nil }
        return "http://\(user):\(password)@127.0.0.1:\(port)"
    }
    /// The temporary directory holding tinyproxy.conf and the log (removed by `stop()`).
    public var directory: String { server.directory }

    private init(port: Int, user: String?, password: String?, server: ForegroundServer) {
        self.port = port
        self.user = user
        self.password = password
        self.server = server
    }

    /// Starts tinyproxy on 127.0.0.1 (foreground, `-d`), accepting clients from 127.0.0.1 only,
    /// forwarding and tunnelling to any host and port (no `ConnectPort` line: all ports allowed),
    /// adding its `Via` header as tinyproxy does by default, up to 100 clients at once.
    ///
    /// With `user` and `password` (both or neither; tinyproxy's configuration grammar allows
    /// letters, digits, '-', '.' and '_' only) every request needs
    /// `Proxy-Authorization: Basic ...`, CONNECT included.
    ///
    /// Throws `RealServerError` when tinyproxy is missing (env TINYPROXY_BINARY, PATH, /usr/sbin)
    /// or does not start.
    public static func start(user: String? = nil, password: String? = nil) async throws -> ForwardProxy {
        guard let binary = ForegroundServer.findBinary(["tinyproxy"], variable: "TINYPROXY_BINARY") else {
            throw RealServerError("tinyproxy not found (looked at $TINYPROXY_BINARY, in PATH and /usr/sbin); "
                + "install it with `scripts/install-deps --test` (Debian: tinyproxy)")
        }
        guard (user == nil) == (password == nil) else {
            throw RealServerError("ForwardProxy.start: give both user and password, or neither")
        }
        for word in [user, password].compactMap({ $0 }) {
            guard !word.isEmpty, word.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }) else {
                throw RealServerError("ForwardProxy.start: tinyproxy's BasicAuth takes [-A-Za-z0-9._]+ only: \(word.debugDescription)")
            }
        }
        var port = 0
        let server = try await ForegroundServer.launch(name: "tinyproxy", binary: binary, logs: ["tinyproxy.log"]) { directory in
            port = try Nginx.freePort()
            var config = """
                # Written by SwgetTestSupport.ForwardProxy for one test; removed by stop().
                Port \(port)
                Listen 127.0.0.1
                Timeout 600
                LogFile "\(directory)/tinyproxy.log"
                LogLevel Info
                PidFile "\(directory)/tinyproxy.pid"
                MaxClients 100
                Allow 127.0.0.1

                """
            if let user, let password { config += "BasicAuth \(user) \(password)\n" }
            try config.write(toFile: directory + "/tinyproxy.conf", atomically: true, encoding: .utf8)
            return .init(arguments: ["-d", "-c", directory + "/tinyproxy.conf"], ports: [port])
        }
        return ForwardProxy(port: port, user: user, password: password, server: server)
    }

    /// The server's process group (its leader's pid), for tests checking that `stop()` left nothing running.
    package var processGroup: pid_t { server.pid }

    /// Stops tinyproxy and removes its temporary directory. Idempotent.
    public func stop() { server.stop() }

    /// tinyproxy's log so far (LogLevel Info: connections, request lines, upstream connects, errors).
    public func log() -> String { server.read("tinyproxy.log") }

    /// The request lines the proxy received, in order, as sent by the client:
    /// "GET http://127.0.0.1:8080/a HTTP/1.1", "CONNECT localhost:8443 HTTP/1.1" (requests refused
    /// with 407 included; the readiness probe sends none).
    public func requestLines() -> [String] {
        log().split(separator: "\n").compactMap { line -> String? in
            guard line.contains("Request (file descriptor"), let range = line.range(of: "): ") else { return nil }
            return String(line[range.upperBound...])
        }
    }
}
