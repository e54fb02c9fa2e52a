import Foundation

/// A real SOCKS5 server (Debian's microsocks) on a free loopback port, with or without
/// username/password authentication (RFC 1929), for the proxy issue's `socks5://` and `socks5h://`
/// tests. microsocks runs unprivileged in the foreground and checks the credentials itself, where
/// dante-server would need system accounts for its `username` method. Tests stop what they start.
///
/// ```swift
/// let socks = try SocksServer.start(user: "alice", password: "secret")
/// defer { socks.stop() }
/// // swget --proxy socks5h://alice:secret@127.0.0.1:\(socks.port) ...
/// #expect(socks.connections().contains("localhost:\(port)"))
/// ```
///
/// microsocks speaks SOCKS5 only (no SOCKS4/4a), CONNECT only (no BIND, no UDP ASSOCIATE), and
/// resolves names itself for `socks5h://` (address type 3).
public final class SocksServer: Sendable {
    /// The server's port on 127.0.0.1.
    public let port: Int
    /// The credentials it demands, if any.
    public let user: String?
    public let password: String?

    private let server: ForegroundServer

    /// "socks5://127.0.0.1:PORT" (the client resolves names).
    public var url: String { "socks5://127.0.0.1:\(port)" }
    /// "socks5h://127.0.0.1:PORT" (the server resolves names).
    public var hostnameURL: String { "socks5h://127.0.0.1:\(port)" }
    /// The temporary directory holding microsocks's output (removed by `stop()`).
    public var directory: String { server.directory }

    private init(port: Int, user: String?, password: String?, server: ForegroundServer) {
        self.port = port
        self.user = user
        self.password = password
        self.server = server
    }

    /// Starts microsocks on 127.0.0.1 (`-i 127.0.0.1 -p PORT`, plus `-u USER -P PASSWORD` when
    /// both are given: then only method 0x02, username/password, is accepted). RFC 1929 bounds both
    /// to 1...255 bytes; NUL and control characters are refused here (they would not survive the
    /// command line).
    ///
    /// Throws `RealServerError` when microsocks is missing (env MICROSOCKS_BINARY, PATH) or does not
    /// start.
    public static func start(user: String? = nil, password: String? = nil) async throws -> SocksServer {
        guard let binary = ForegroundServer.findBinary(["microsocks"], variable: "MICROSOCKS_BINARY") else {
            throw RealServerError("microsocks not found (looked at $MICROSOCKS_BINARY and in PATH); "
                + "install it with `scripts/install-deps --test` (Debian: microsocks)")
        }
        guard (user == nil) == (password == nil) else {
            throw RealServerError("SocksServer.start: give both user and password, or neither")
        }
        for word in [user, password].compactMap({ $0 }) {
            guard (1...255).contains(word.utf8.count), !word.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
                throw RealServerError("SocksServer.start: RFC 1929 credentials are 1...255 bytes, no control characters here: \(word.debugDescription)")
            }
        }
        var port = 0
        let server = try await ForegroundServer.launch(name: "microsocks", binary: binary) { _ in
            port = try Nginx.freePort()
            var arguments = ["-i", "127.0.0.1", "-p", String(port)]
            if let user, let password { arguments += ["-u", user, "-P", password] }
            return .init(arguments: arguments, ports: [port])
        }
        return SocksServer(port: port, user: user, password: password, server: server)
    }

    /// The server's process group (its leader's pid), for tests checking that `stop()` left nothing running.
    package var processGroup: pid_t { server.pid }

    /// Stops microsocks. Idempotent.
    public func stop() { server.stop() }

    /// microsocks's output so far: one line per tunnel it opened,
    /// "client[FD] 127.0.0.1: connected to HOST:PORT" (nothing for refused authentication).
    public func log() -> String { server.read("output.log") }

    /// The "HOST:PORT" of every tunnel opened so far, in order, as the client named it (a name for
    /// socks5h, an address for socks5).
    public func connections() -> [String] {
        log().split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: ": connected to ") else { return nil }
            return String(line[range.upperBound...])
        }
    }
}
