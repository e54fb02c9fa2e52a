import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real nginx for the TLS controls' tests: HTTPS with a given certificate, optionally asking
/// for client certificates (`ssl_verify_client`), limited protocol versions, and an access log
/// that says how each connection's handshake went. Plus a plain HTTP port, so redirects from
/// HTTPS to HTTP can be tested. Tests stop what they start.
///
/// Locations of the HTTPS server, besides the files of `root`:
/// - `/whoami` answers 200 with the client certificate's subject (`$ssl_client_s_dn`, empty
///   without one) and a newline;
/// - `/to-http/NAME` answers 302 with `Location: http://127.0.0.1:HTTP/NAME`.
///
/// The access log (``accessLog()``) has one line per request:
/// `CONNECTION REUSED PROTOCOL URI STATUS client="SUBJECT"`, where CONNECTION is nginx's
/// connection serial number and REUSED is `r` for a resumed TLS session, `.` for a full
/// handshake (`$ssl_session_reused`); ``fullHandshakes()`` counts the connections with `.`.
public final class NginxTLS: Sendable {
    /// Whether and how nginx asks for a client certificate.
    public enum ClientVerification: Sendable {
        /// Never asks.
        case off
        /// Asks and requires one signed by the CA file (`ssl_verify_client on`): without one the
        /// answer is 400.
        case required(caFile: String)
        /// Asks; a certificate, if sent, must be signed by the CA file (`ssl_verify_client optional`).
        case optional(caFile: String)
    }

    /// The HTTPS port on 127.0.0.1.
    public let httpsPort: Int
    /// The plain HTTP port on 127.0.0.1.
    public let httpPort: Int
    private let server: ForegroundServer

    /// "https://localhost:PORT"
    public var httpsURL: String { "https://localhost:\(httpsPort)" }
    /// "http://127.0.0.1:PORT"
    public var httpURL: String { "http://127.0.0.1:\(httpPort)" }

    private init(httpsPort: Int, httpPort: Int, server: ForegroundServer) {
        self.httpsPort = httpsPort
        self.httpPort = httpPort
        self.server = server
    }

    /// Starts nginx serving `root` over HTTPS with the PEM certificate and key. `protocols` is
    /// nginx's `ssl_protocols` value (e.g. "TLSv1.2"); `keepaliveRequests` caps the requests of
    /// one connection (so that a batch needs several connections).
    public static func start(root: String, certificate: String, key: String, clientVerification: ClientVerification = .off,
                             protocols: String = "TLSv1.2 TLSv1.3", keepaliveRequests: Int = 100) async throws -> NginxTLS {
        guard let binary = ForegroundServer.findBinary(["nginx"], variable: "NGINX_BINARY") else {
            throw RealServerError("nginx not found (looked at $NGINX_BINARY, in PATH and /usr/sbin); "
                + "install it with `scripts/install-deps --test`")
        }
        let root = try ForegroundServer.configPath(root)
        let tls = (try ForegroundServer.configPath(certificate), try ForegroundServer.configPath(key))
        var verification = ""
        switch clientVerification {
        case .off: break
        case .required(let caFile): verification = "ssl_client_certificate \"\(try ForegroundServer.configPath(caFile))\"; ssl_verify_client on;"
        case .optional(let caFile): verification = "ssl_client_certificate \"\(try ForegroundServer.configPath(caFile))\"; ssl_verify_client optional;"
        }
        guard protocols.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == " " }) else {
            throw RealServerError("NginxTLS: invalid protocols '\(protocols)'")
        }
        var ports = (https: 0, http: 0)
        let server = try await ForegroundServer.launch(name: "nginx-tls", binary: binary, logs: ["error.log"]) { directory in
            ports.https = try Nginx.freePort()
            repeat { ports.http = try Nginx.freePort() } while ports.http == ports.https
            let user = geteuid() == 0 ? "user root;" : ""
            let config = """
                # Written by SwgetTestSupport.NginxTLS for one test; removed by stop().
                \(user)
                worker_processes 1;
                pid "\(directory)/nginx.pid";
                error_log "\(directory)/error.log" info;
                events { worker_connections 512; }
                http {
                    log_format tls '$connection $ssl_session_reused $ssl_protocol $request_uri $status client="$ssl_client_s_dn"';
                    access_log "\(directory)/access.log" tls;
                    keepalive_timeout 10;
                    keepalive_requests \(keepaliveRequests);
                    default_type application/octet-stream;
                    client_body_temp_path "\(directory)/client_body";
                    proxy_temp_path "\(directory)/proxy";
                    fastcgi_temp_path "\(directory)/fastcgi";
                    uwsgi_temp_path "\(directory)/uwsgi";
                    scgi_temp_path "\(directory)/scgi";
                    server {
                        listen 127.0.0.1:\(ports.https) ssl;
                        server_name localhost;
                        ssl_certificate "\(tls.0)";
                        ssl_certificate_key "\(tls.1)";
                        ssl_protocols \(protocols);
                        ssl_session_cache shared:swget:1m;
                        \(verification)
                        root "\(root)";
                        location = /whoami {
                            default_type text/plain;
                            return 200 "$ssl_client_s_dn\\n";
                        }
                        location ~ ^/to-http/(?<swget_target>.*)$ {
                            return 302 http://127.0.0.1:\(ports.http)/$swget_target;
                        }
                    }
                    server {
                        listen 127.0.0.1:\(ports.http);
                        root "\(root)";
                    }
                }

                """
            try config.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
            return .init(arguments: ["-p", directory + "/", "-c", directory + "/nginx.conf", "-e", directory + "/error.log",
                                     "-g", "daemon off;"],
                         ports: [ports.https, ports.http])
        }
        return NginxTLS(httpsPort: ports.https, httpPort: ports.http, server: server)
    }

    /// Stops nginx and removes its temporary directory. Idempotent.
    public func stop() { server.stop() }

    /// The access log so far (see the type's description).
    public func accessLog() -> String { server.read("access.log") }

    /// The error log so far.
    public func errorLog() -> String { server.read("error.log") }

    /// The connections of the access log, each with whether its TLS session was resumed.
    public func connections() -> [Int: Bool] {
        var result: [Int: Bool] = [:]
        for line in accessLog().split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 2)
            guard fields.count >= 2, let connection = Int(fields[0]) else { continue }
            result[connection] = fields[1] == "r"
        }
        return result
    }

    /// How many connections made a full handshake (`$ssl_session_reused` = ".").
    public func fullHandshakes() -> Int { connections().values.filter { !$0 }.count }
}
