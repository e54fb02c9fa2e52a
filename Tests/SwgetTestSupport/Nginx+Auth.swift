import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A real nginx with HTTP Basic authentication (`ngx_http_auth_basic_module`, compiled into
/// every Debian nginx), for the authentication issue's end-to-end tests. A separate launcher
/// because `Nginx`'s configuration is fixed. Tests stop what they start.
///
/// ```swift
/// let nginx = try NginxAuth.start(root: directory, users: ["alice": "secret"])
/// defer { nginx.stop() }
/// // GET \(nginx.httpURL)/private/NAME   (Basic, realm NginxAuth.realm)
/// ```
public final class NginxAuth: Sendable {
    /// The realm of `/private/` (`auth_basic`).
    public static let realm = "swget nginx"

    /// The plain HTTP port on 127.0.0.1.
    public let httpPort: Int
    /// The directory served.
    public let root: String

    private let server: ForegroundServer

    /// "http://127.0.0.1:PORT"
    public var httpURL: String { "http://127.0.0.1:\(httpPort)" }
    /// The temporary directory holding nginx.conf, the password file and the logs (removed by `stop()`).
    public var directory: String { server.directory }

    private init(httpPort: Int, root: String, server: ForegroundServer) {
        self.httpPort = httpPort
        self.root = root
        self.server = server
    }

    /// Starts nginx on 127.0.0.1 serving `root`:
    /// - `/NAME`: the files, no authentication;
    /// - `/private/NAME`: the same files behind `auth_basic` (realm `realm`; `users` in an
    ///   `auth_basic_user_file` with `{SHA}` hashes, which nginx checks itself);
    /// - `/redirect/PATH`: 302 to `/PATH`.
    ///
    /// The access log (`accessLog()`) has one line per request:
    /// `METHOD URI STATUS user="USER" authorization="AUTHORIZATION HEADER"`.
    ///
    /// Throws `RealServerError` when nginx is missing (env NGINX_BINARY, PATH, /usr/sbin), or
    /// with its logs when it does not start. User names may not contain ':' or control
    /// characters, passwords no control characters.
    public static func start(root: String, users: [String: String] = ["alice": "secret"]) async throws -> NginxAuth {
        guard let binary = ForegroundServer.findBinary(["nginx"], variable: "NGINX_BINARY") else {
            throw RealServerError("nginx not found (looked at $NGINX_BINARY, in PATH and /usr/sbin); "
                + "install it with `scripts/install-deps --test` (Debian: nginx)")
        }
        for (user, password) in users {
            let control: (String) -> Bool = { $0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f } }
            guard !user.isEmpty, !user.contains(":"), !control(user), !control(password) else {
                throw RealServerError("NginxAuth.start: bad user name or password \(user.debugDescription)")
            }
        }
        let root = try ForegroundServer.configPath(root)
        var port = 0
        let server = try await ForegroundServer.launch(name: "nginx-auth", binary: binary, logs: ["error.log"]) { directory in
            port = try Nginx.freePort()
            try Apache.htpasswd(users).write(toFile: directory + "/htpasswd", atomically: true, encoding: .utf8)
            let config = configuration(directory: directory, root: root, httpPort: port)
            try config.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
            return .init(arguments: ["-p", directory + "/", "-c", directory + "/nginx.conf", "-e", directory + "/error.log",
                                     "-g", "daemon off;"],
                         ports: [port])
        }
        return NginxAuth(httpPort: port, root: root, server: server)
    }

    /// Stops nginx (master and worker) and removes its temporary directory. Idempotent.
    public func stop() { server.stop() }

    /// The access log so far (see `start`); nginx writes a line when a request completes.
    public func accessLog() -> String { server.read("access.log") }

    /// The error log so far (failed logins are logged there).
    public func errorLog() -> String { server.read("error.log") }

    private static func configuration(directory: String, root: String, httpPort: Int) -> String {
        // Running as root, the worker would otherwise switch to nobody and could not read 0700 temp dirs.
        let user = geteuid() == 0 ? "user root;" : ""
        return """
            # Written by SwgetTestSupport.NginxAuth for one test; removed by stop().
            \(user)
            worker_processes 1;
            pid "\(directory)/nginx.pid";
            error_log "\(directory)/error.log" info;
            events { worker_connections 512; }
            http {
                log_format swget '$request_method $request_uri $status user="$remote_user" authorization="$http_authorization"';
                access_log "\(directory)/access.log" swget;
                keepalive_timeout 10;
                default_type application/octet-stream;
                types { text/plain txt; }
                client_body_temp_path "\(directory)/client_body";
                proxy_temp_path "\(directory)/proxy";
                fastcgi_temp_path "\(directory)/fastcgi";
                uwsgi_temp_path "\(directory)/uwsgi";
                scgi_temp_path "\(directory)/scgi";

                server {
                    listen 127.0.0.1:\(httpPort);
                    server_name localhost;
                    root "\(root)";
                    location /private/ {
                        alias "\(root)/";
                        auth_basic "\(realm)";
                        auth_basic_user_file "\(directory)/htpasswd";
                    }
                    location ~ ^/redirect/(?<swget_target>.*)$ {
                        return 302 /$swget_target;
                    }
                }
            }

            """
    }
}
