import Crypto
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A real Apache httpd (Debian's apache2-bin) on free loopback ports, with HTTP Basic and Digest
/// authentication as deployed (`mod_auth_basic`, `mod_auth_digest`), for the authentication
/// issue's end-to-end tests. Tests stop what they start.
///
/// ```swift
/// let apache = try Apache.start(root: directory, users: ["alice": "secret"])
/// defer { apache.stop() }
/// // GET \(apache.httpURL)/basic/file.txt   (Basic, realm Apache.basicRealm)
/// // GET \(apache.httpURL)/digest/file.txt  (Digest MD5, qop=auth, realm Apache.digestRealm)
/// ```
///
/// Apache runs with `-X`: one process (with its threads) that never changes user, so it works as
/// root (the CI case: a normal start would have to drop to a `User` that can read the test's 0700
/// temporary directories, and `User root` is refused at compile time) and as any other user alike.
/// As root, Debian's build logs one harmless alert at startup (AH02155, "getpwuid: couldn't
/// determine user name from uid 4294967295": its default `User` is `#-1`) and keeps serving as
/// root; the smoke test reads 0700 directories through it, so a change there fails loudly.
public final class Apache: Sendable {
    /// The realm of `/basic/`.
    public static let basicRealm = "swget basic"
    /// The realm of `/digest/`.
    public static let digestRealm = "swget digest"

    /// The plain HTTP port on 127.0.0.1.
    public let httpPort: Int
    /// The HTTPS port on 127.0.0.1, when a certificate was given.
    public let httpsPort: Int?
    /// The directory served.
    public let root: String
    /// The temporary directory holding httpd.conf, the password files and the logs (removed by `stop()`).
    public var directory: String { server.directory }

    private let server: ForegroundServer

    /// "http://127.0.0.1:PORT"
    public var httpURL: String { "http://127.0.0.1:\(httpPort)" }
    /// "https://localhost:PORT" (the certificate must name localhost), when HTTPS is on.
    public var httpsURL: String? { httpsPort.map { "https://localhost:\($0)" } }

    private init(httpPort: Int, httpsPort: Int?, root: String, server: ForegroundServer) {
        self.httpPort = httpPort
        self.httpsPort = httpsPort
        self.root = root
        self.server = server
    }

    /// Starts Apache serving `root` on 127.0.0.1 (an HTTP port, and an HTTPS port when both TLS
    /// paths are given: PEM files, the certificate possibly followed by its chain):
    /// - `/NAME`: the files, no authentication;
    /// - `/basic/NAME`: the same files behind `AuthType Basic` (realm `basicRealm`; passwords
    ///   stored as `{SHA}` in a generated htpasswd file; Apache compares the password's bytes, so a
    ///   UTF-8 password works when the client sends UTF-8);
    /// - `/digest/NAME`: the same files behind `AuthType Digest` (realm `digestRealm`,
    ///   `AuthDigestProvider file`, `AuthDigestAlgorithm MD5`, qop `auth`; Apache 2.4 knows MD5
    ///   only: `supportsDigest(algorithm:)` asks the installed one);
    /// - `/redirect/PATH`: 302 to `/PATH` (a challenge on a redirect target: `/redirect/basic/x`).
    ///
    /// `users` maps user names to passwords for both locations. A user name may not contain ':' or
    /// control characters, a password no control characters; the realms are fixed.
    ///
    /// The access log (`accessLog()`) has one line per request:
    /// `METHOD URI STATUS BYTES user="USER" authorization="AUTHORIZATION HEADER"`.
    ///
    /// Throws `RealServerError` when apache2 is missing (env APACHE_BINARY, PATH, /usr/sbin), when
    /// the modules are missing (/usr/lib/apache2/modules, env APACHE_MODULES), or with Apache's logs
    /// when it does not start.
    public static func start(
        root: String, users: [String: String] = ["alice": "secret"],
        tlsCertificatePath: String? = nil, tlsKeyPath: String? = nil
    ) async throws -> Apache {
        let binary = try findApache()
        let modules = try moduleDirectory()
        let tls = try ForegroundServer.tlsPair(tlsCertificatePath, tlsKeyPath)
        let root = try ForegroundServer.configPath(root)
        for (user, password) in users {
            guard !user.isEmpty, !user.contains(":"), !hasControl(user), !hasControl(password) else {
                throw RealServerError("Apache.start: user names need no ':' and no control characters, passwords no control characters: \(user.debugDescription)")
            }
        }
        var ports: (http: Int, https: Int?) = (0, nil)
        let server = try await ForegroundServer.launch(name: "apache", binary: binary, logs: ["error.log"]) { directory in
            ports.http = try Nginx.freePort()
            ports.https = nil
            if tls != nil {
                var https = 0
                repeat { https = try Nginx.freePort() } while https == ports.http
                ports.https = https
            }
            try htpasswd(users).write(toFile: directory + "/htpasswd", atomically: true, encoding: .utf8)
            try htdigest(users).write(toFile: directory + "/htdigest", atomically: true, encoding: .utf8)
            let config = configuration(directory: directory, modules: modules, root: root,
                                       httpPort: ports.http, httpsPort: ports.https, tls: tls)
            try config.write(toFile: directory + "/httpd.conf", atomically: true, encoding: .utf8)
            return .init(arguments: ["-X", "-d", directory, "-f", directory + "/httpd.conf"],
                         ports: [ports.http] + (ports.https.map { [$0] } ?? []))
        }
        return Apache(httpPort: ports.http, httpsPort: ports.https, root: root, server: server)
    }

    /// The server's process group (its leader's pid), for tests checking that `stop()` left nothing running.
    package var processGroup: pid_t { server.pid }

    /// Stops Apache and removes its temporary directory. Idempotent.
    public func stop() { server.stop() }

    /// The access log so far (see `start`); Apache writes a line when a request completes.
    public func accessLog() -> String { server.read("access.log") }

    /// The error log so far (authentication failures are logged there with their reason).
    public func errorLog() -> String { server.read("error.log") }

    /// Whether the installed Apache accepts `AuthDigestAlgorithm ALGORITHM` (asks `apache2 -t`;
    /// Apache 2.4 answers true for "MD5" only).
    public static func supportsDigest(algorithm: String) -> Bool {
        guard let binary = try? findApache(), let modules = try? moduleDirectory(),
              !algorithm.isEmpty, algorithm.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }),
              let directory = try? makeTemporaryDirectory(prefix: "swget-apache-probe")
        else { return false }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = """
            ServerRoot "\(directory)"
            ServerName localhost
            ErrorLog "\(directory)/error.log"
            LoadModule mpm_event_module "\(modules)/mod_mpm_event.so"
            LoadModule auth_digest_module "\(modules)/mod_auth_digest.so"
            <Location />
                AuthDigestAlgorithm \(algorithm)
            </Location>

            """
        guard (try? config.write(toFile: directory + "/httpd.conf", atomically: true, encoding: .utf8)) != nil,
              let result = try? SwgetProcess.runBlocking(
                executable: binary, arguments: ["-t", "-d", directory, "-f", directory + "/httpd.conf"],
                directory: directory, environment: [:], stdin: nil, timeout: .seconds(10))
        else { return false }
        return result.status == 0
    }

    // MARK: - Internals

    private static func findApache() throws -> String {
        guard let binary = ForegroundServer.findBinary(["apache2", "httpd"], variable: "APACHE_BINARY") else {
            throw RealServerError("apache2 not found (looked at $APACHE_BINARY, in PATH and /usr/sbin); "
                + "install it with `scripts/install-deps --test` (Debian: apache2-bin)")
        }
        return binary
    }

    private static func moduleDirectory() throws -> String {
        let directory = getenv("APACHE_MODULES").map { String(cString: $0) } ?? "/usr/lib/apache2/modules"
        guard access(directory + "/mod_auth_digest.so", R_OK) == 0 else {
            throw RealServerError("Apache modules not found in \(directory) (set APACHE_MODULES; Debian: apache2-bin)")
        }
        return try ForegroundServer.configPath(directory)
    }

    private static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }
    }

    /// htpasswd lines with `{SHA}` hashes (base64 of SHA-1), which Apache accepts on every platform.
    static func htpasswd(_ users: [String: String]) -> String {
        users.sorted { $0.key < $1.key }.map { user, password in
            "\(user):{SHA}\(Data(Insecure.SHA1.hash(data: Data(password.utf8))).base64EncodedString())\n"
        }.joined()
    }

    /// htdigest lines: `user:realm:MD5(user:realm:password)` in lower-case hex.
    static func htdigest(_ users: [String: String]) -> String {
        users.sorted { $0.key < $1.key }.map { user, password in
            let ha1 = Insecure.MD5.hash(data: Data("\(user):\(digestRealm):\(password)".utf8))
            return "\(user):\(digestRealm):\(ha1.map { String(format: "%02x", $0) }.joined())\n"
        }.joined()
    }

    private static func configuration(
        directory: String, modules: String, root: String, httpPort: Int, httpsPort: Int?,
        tls: (certificate: String, key: String)?
    ) -> String {
        var loads = ["mpm_event", "authn_core", "authn_file", "authz_core", "authz_user", "auth_basic",
                     "auth_digest", "alias", "mime", "dir"]
        var https = ""
        if let httpsPort, let tls {
            loads += ["socache_shmcb", "ssl"]
            https = """
                Listen 127.0.0.1:\(httpsPort)
                <VirtualHost 127.0.0.1:\(httpsPort)>
                    ServerName localhost
                    SSLEngine on
                    SSLCertificateFile "\(tls.certificate)"
                    SSLCertificateKeyFile "\(tls.key)"
                </VirtualHost>
                """
        }
        let loadLines = loads.map { "LoadModule \($0)_module \"\(modules)/mod_\($0).so\"" }.joined(separator: "\n")
        return """
            # Written by SwgetTestSupport.Apache for one test; removed by stop().
            ServerRoot "\(directory)"
            DefaultRuntimeDir "\(directory)"
            PidFile "\(directory)/httpd.pid"
            \(loadLines)
            ServerName localhost
            Listen 127.0.0.1:\(httpPort)
            ErrorLog "\(directory)/error.log"
            LogLevel info
            LogFormat "%m %U%q %>s %B user=\\"%u\\" authorization=\\"%{Authorization}i\\"" swget
            CustomLog "\(directory)/access.log" swget
            TypesConfig /dev/null
            AddType text/html .html .htm
            AddType text/plain .txt
            AddType application/json .json
            KeepAliveTimeout 10
            ThreadsPerChild 32
            DocumentRoot "\(root)"
            <Directory />
                AllowOverride None
                Require all denied
            </Directory>
            <Directory "\(root)">
                AllowOverride None
                Options None
                Require all granted
            </Directory>
            Alias /basic/ "\(root)/"
            Alias /digest/ "\(root)/"
            RedirectMatch 302 ^/redirect/(.*)$ /$1
            <Location /basic/>
                AuthType Basic
                AuthName "\(basicRealm)"
                AuthBasicProvider file
                AuthUserFile "\(directory)/htpasswd"
                Require valid-user
            </Location>
            <Location /digest/>
                AuthType Digest
                AuthName "\(digestRealm)"
                AuthDigestDomain /digest/
                AuthDigestProvider file
                AuthUserFile "\(directory)/htdigest"
                AuthDigestAlgorithm MD5
                Require valid-user
            </Location>
            \(https)

            """
    }
}
