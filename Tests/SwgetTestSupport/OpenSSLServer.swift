import Foundation

/// `openssl s_server -www` on a free loopback port, for TLS tests that need a server limited to
/// one protocol version or that reports how each handshake went. Every `GET` is answered with
/// OpenSSL's status page (HTTP/1.0, the body ends when the connection closes), which names the
/// handshake: `New, TLSv1.3, Cipher is TLS_AES_128_GCM_SHA256` for a full one, `Reused, …` for a
/// resumed session. One connection at a time. Tests stop what they start.
///
/// ```swift
/// let server = try OpenSSLServer.start(certificate: pki.path("server.pem"), key: pki.path("server.key"), version: .tls12)
/// defer { server.stop() }
/// // GET \(server.url)/
/// ```
public final class OpenSSLServer: Sendable {
    /// The protocol versions the server accepts.
    public enum Version: Sendable {
        /// TLS 1.2 and 1.3.
        case any
        /// TLS 1.2 only (`-tls1_2`).
        case tls12
        /// TLS 1.3 only (`-tls1_3`).
        case tls13
    }

    /// The port on 127.0.0.1.
    public let port: Int
    private let server: ForegroundServer

    /// "https://localhost:PORT/"
    public var url: String { "https://localhost:\(port)/" }

    private init(port: Int, server: ForegroundServer) {
        self.port = port
        self.server = server
    }

    /// Starts `openssl s_server` with the PEM certificate (its chain may follow) and key.
    /// `tickets` false turns session tickets off (`-no_ticket`, TLS 1.2 then resumes by session ID
    /// only). Throws `RealServerError` when openssl is missing or does not start.
    public static func start(certificate: String, key: String, version: Version = .any, tickets: Bool = true) async throws -> OpenSSLServer {
        guard let binary = SwgetProcess.findExecutable("openssl") else {
            throw RealServerError("openssl not found (install it with scripts/install-deps --test)")
        }
        var port = 0
        let server = try await ForegroundServer.launch(name: "openssl-s_server", binary: binary) { _ in
            port = try Nginx.freePort()
            var arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key, "-www", "-quiet"]
            switch version {
            case .any: break
            case .tls12: arguments.append("-tls1_2")
            case .tls13: arguments.append("-tls1_3")
            }
            if !tickets { arguments.append("-no_ticket") }
            return .init(arguments: arguments, ports: [port])
        }
        return OpenSSLServer(port: port, server: server)
    }

    /// Stops the server. Idempotent.
    public func stop() { server.stop() }

    /// What the server printed so far.
    public func output() -> String {
        (try? String(contentsOfFile: server.outputPath, encoding: .utf8)) ?? ""
    }
}
