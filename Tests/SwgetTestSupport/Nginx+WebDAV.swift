import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A real nginx that accepts uploads (`ngx_http_dav_module`: `dav_methods PUT DELETE MKCOL COPY
/// MOVE`, `client_max_body_size 0`), for the upload issue's end-to-end tests. A separate launcher
/// because `Nginx`'s configuration is fixed; Debian bookworm's `nginx` binary (which nginx-light
/// depends on) has the module compiled in. Tests stop what they start.
///
/// ```swift
/// let dav = try NginxWebDAV.start(root: directory)
/// defer { dav.stop() }
/// // swget --upload-file big.bin \(dav.httpURL)/up/big.bin   → directory/up/big.bin
/// ```
public final class NginxWebDAV: Sendable {
    /// The plain HTTP port on 127.0.0.1.
    public let httpPort: Int
    /// The HTTPS port on 127.0.0.1, when a certificate was given.
    public let httpsPort: Int?
    /// The directory uploads land in (and GET serves from).
    public let root: String

    private let server: ForegroundServer

    /// "http://127.0.0.1:PORT"
    public var httpURL: String { "http://127.0.0.1:\(httpPort)" }
    /// "https://localhost:PORT" (the certificate must name localhost), when HTTPS is on.
    public var httpsURL: String? { httpsPort.map { "https://localhost:\($0)" } }
    /// The temporary directory holding nginx.conf, the body buffers and the logs (removed by `stop()`).
    public var directory: String { server.directory }

    private init(httpPort: Int, httpsPort: Int?, root: String, server: ForegroundServer) {
        self.httpPort = httpPort
        self.httpsPort = httpsPort
        self.root = root
        self.server = server
    }

    /// Starts nginx on 127.0.0.1 with WebDAV over `root`: `PUT /PATH` writes `root/PATH` (missing
    /// directories created; 201 for a new file, 204 for a replaced one; any size; Content-Length or
    /// chunked), `DELETE`, `MKCOL`, `COPY`, `MOVE`; `GET`/`HEAD` serve the files. Request bodies are
    /// buffered in the temporary directory (on /tmp, like the usual roots, so the final move is a
    /// rename) and nginx answers only once the whole body arrived. `Expect: 100-continue` is answered
    /// with `100 Continue` as soon as the headers pass.
    ///
    /// The access log (`accessLog()`) has one line per request:
    /// `METHOD URI STATUS request_length=N content_length="CL" transfer_encoding="TE" expect="EXPECT" content_type="CT"`.
    ///
    /// Throws `RealServerError` when nginx is missing (env NGINX_BINARY, PATH, /usr/sbin) or does not
    /// start (e.g. a build without the dav module: "unknown directive dav_methods").
    public static func start(root: String, tlsCertificatePath: String? = nil, tlsKeyPath: String? = nil) async throws -> NginxWebDAV {
        guard let binary = ForegroundServer.findBinary(["nginx"], variable: "NGINX_BINARY") else {
            throw RealServerError("nginx not found (looked at $NGINX_BINARY, in PATH and /usr/sbin); "
                + "install it with `scripts/install-deps --test` (Debian: nginx)")
        }
        let tls = try ForegroundServer.tlsPair(tlsCertificatePath, tlsKeyPath)
        let root = try ForegroundServer.configPath(root)
        var ports: (http: Int, https: Int?) = (0, nil)
        let server = try await ForegroundServer.launch(name: "nginx-dav", binary: binary, logs: ["error.log"]) { directory in
            ports.http = try Nginx.freePort()
            ports.https = nil
            if tls != nil {
                var https = 0
                repeat { https = try Nginx.freePort() } while https == ports.http
                ports.https = https
            }
            let config = configuration(directory: directory, root: root, httpPort: ports.http, httpsPort: ports.https, tls: tls)
            try config.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
            return .init(arguments: ["-p", directory + "/", "-c", directory + "/nginx.conf", "-e", directory + "/error.log",
                                     "-g", "daemon off;"],
                         ports: [ports.http] + (ports.https.map { [$0] } ?? []))
        }
        return NginxWebDAV(httpPort: ports.http, httpsPort: ports.https, root: root, server: server)
    }

    /// The server's process group (its leader's pid), for tests checking that `stop()` left nothing running.
    package var processGroup: pid_t { server.pid }

    /// Stops nginx (master and worker) and removes its temporary directory. Idempotent.
    public func stop() { server.stop() }

    /// The access log so far (see `start`); nginx writes a line when a request completes.
    public func accessLog() -> String { server.read("access.log") }

    /// The error log so far.
    public func errorLog() -> String { server.read("error.log") }

    private static func configuration(
        directory: String, root: String, httpPort: Int, httpsPort: Int?, tls: (certificate: String, key: String)?
    ) -> String {
        // Running as root, the worker would otherwise switch to nobody and could not write 0700 temp dirs.
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
            # Written by SwgetTestSupport.NginxWebDAV for one test; removed by stop().
            \(user)
            worker_processes 1;
            pid "\(directory)/nginx.pid";
            error_log "\(directory)/error.log" info;
            events { worker_connections 512; }
            http {
                log_format swget '$request_method $request_uri $status request_length=$request_length content_length="$http_content_length" transfer_encoding="$http_transfer_encoding" expect="$http_expect" content_type="$http_content_type"';
                access_log "\(directory)/access.log" swget;
                sendfile on;
                keepalive_timeout 10;
                default_type application/octet-stream;
                client_body_temp_path "\(directory)/client_body";
                proxy_temp_path "\(directory)/proxy";
                fastcgi_temp_path "\(directory)/fastcgi";
                uwsgi_temp_path "\(directory)/uwsgi";
                scgi_temp_path "\(directory)/scgi";
                client_max_body_size 0;
                client_body_timeout 120s;

                server {
                    \(listen)
                    server_name localhost;
                    root "\(root)";
                    location / {
                        dav_methods PUT DELETE MKCOL COPY MOVE;
                        create_full_put_path on;
                        dav_access user:rw group:r all:r;
                    }
                }
            }

            """
    }
}
