import Foundation
import Testing
import SwgetTestSupport

/// swget's TLS options end to end: the built binary against nginx (client certificates, pins,
/// CRLs, CA directories, --https-only, resumption, -S) and openssl s_server (version bounds).
@Suite("swget TLS options", .serialized)
struct TLSCommandTests {
    static let pki = Result { try OpenSSLPKI.make() }

    struct Fixture {
        let nginx: NginxTLS
        let pki: OpenSSLPKI
        let root: String

        func path(_ name: String) -> String { pki.path(name) }
    }

    /// nginx over `root` with 20 files of 10 KiB (f00.bin ... f19.bin) and hello.txt.
    static func withNginx(certificate: String = "server", clientVerification: NginxTLS.ClientVerification = .off,
                          keepaliveRequests: Int = 100, _ body: (Fixture) async throws -> Void) async throws {
        let pki = try pki.get()
        let root = try makeTemporaryDirectory(prefix: "swget-tls-root")
        for index in 0..<20 {
            try Data((0..<10_240).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ index) })
                .write(to: URL(fileURLWithPath: root + "/f\(index < 10 ? "0" : "")\(index).bin"))
        }
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: root + "/hello.txt"))
        let nginx = try await NginxTLS.start(root: root, certificate: pki.path("\(certificate).pem"), key: pki.path("\(certificate).key"),
                                       clientVerification: clientVerification, keepaliveRequests: keepaliveRequests)
        defer {
            nginx.stop()
            try? FileManager.default.removeItem(atPath: root)
        }
        try await body(Fixture(nginx: nginx, pki: pki, root: root))
    }

    static func swget(_ arguments: [String], stdin: [UInt8]? = nil) async throws -> SwgetResult {
        try await SwgetProcess.run(arguments, in: try makeTemporaryDirectory(), stdin: stdin)
    }

    // MARK: client certificates

    struct IdentityCase: CustomTestStringConvertible, Sendable {
        let name: String
        let arguments: [String]
        var testDescription: String { name }
    }

    static let identities: [IdentityCase] = [
        IdentityCase(name: "PEM certificate and key", arguments: ["--certificate", "client.pem", "--private-key", "client.key"]),
        IdentityCase(name: "DER certificate and key", arguments: ["--certificate", "client.der", "--certificate-type", "DER",
                                                                  "--private-key", "client.key.der", "--private-key-type", "der"]),
        IdentityCase(name: "one PEM file with both", arguments: ["--cert", "client-combined.pem"]),
        IdentityCase(name: "encrypted key with --pass", arguments: ["--cert", "client.pem", "--key", "client-encrypted.key",
                                                                    "--pass", OpenSSLPKI.passphrase]),
        IdentityCase(name: "encrypted key with curl's FILE:PASSWORD", arguments: ["--cert", "client.pem:" + OpenSSLPKI.passphrase,
                                                                                  "--key", "client-encrypted.key"]),
        IdentityCase(name: "curl's --cert-type and --key-type", arguments: ["--cert", "client.der", "--cert-type", "DER",
                                                                            "--key", "client.key"]),
    ]

    @Test(arguments: identities)
    func clientCertificates(_ c: IdentityCase) async throws {
        try await Self.withNginx(clientVerification: .required(caFile: try Self.pki.get().path("ca.pem"))) { f in
            let arguments = c.arguments.map { $0.hasPrefix("client") ? f.path($0) : $0 }
            let result = try await Self.swget(["-q", "--ca-certificate", f.path("ca.pem")] + arguments + ["-O", "-", f.nginx.httpsURL + "/whoami"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdoutText.contains("CN=swget client"), "\(result.stdoutText)")
        }
    }

    @Test func aWrongPassphraseStopsBeforeAnyRequest() async throws {
        try await Self.withNginx(clientVerification: .required(caFile: try Self.pki.get().path("ca.pem"))) { f in
            let result = try await Self.swget(["-q", "--ca-certificate", f.path("ca.pem"), "--cert", f.path("client.pem") + ":wrong",
                                               "--key", f.path("client-encrypted.key"), f.nginx.httpsURL + "/whoami"])
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("swget: wrong passphrase for the private key in '"), "\(result.stderr)")
            #expect(f.nginx.accessLog().isEmpty)
        }
    }

    @Test func anEncryptedKeyWithoutPassphraseNeedsATerminal() async throws {
        let pki = try Self.pki.get()
        let result = try await Self.swget(["--certificate", pki.path("client.pem"), "--private-key", pki.path("client-encrypted.key"),
                                           "https://localhost:1/"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is encrypted: a passphrase is needed, and there is no terminal to ask on (use --pass)"), "\(result.stderr)")
    }

    @Test func noClientCertificateIsAServerError() async throws {
        try await Self.withNginx(clientVerification: .required(caFile: try Self.pki.get().path("ca.pem"))) { f in
            let result = try await Self.swget(["-q", "--ca-certificate", f.path("ca.pem"), "-O", "-", f.nginx.httpsURL + "/whoami"])
            #expect(result.status == 8, "nginx answers 400 without a certificate: \(result.stderr)")
        }
    }

    struct BadOptionCase: CustomTestStringConvertible, Sendable {
        let arguments: [String]
        let status: Int32
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let badOptions: [BadOptionCase] = [
        BadOptionCase(arguments: ["--certificate-type", "P12", "--certificate", "c.p12"], status: 2, message: "unsupported file type 'P12'"),
        BadOptionCase(arguments: ["--certificate", "a.pem", "--cert", "b.pem"], status: 2, message: "give one of them"),
        BadOptionCase(arguments: ["--private-key", "k.pem"], status: 2, message: "--private-key needs --certificate"),
        BadOptionCase(arguments: ["--tls-max", "1.1"], status: 2, message: "TLS 1.1 is refused as insecure"),
        BadOptionCase(arguments: ["--tlsv1.3", "--tls-max", "1.2"], status: 2, message: "the minimum TLS 1.3 is above the maximum TLS 1.2"),
        BadOptionCase(arguments: ["--secure-protocol", "SSLv3"], status: 2, message: "SSLv3 is refused as insecure"),
        BadOptionCase(arguments: ["--secure-protocol", "TLSv9"], status: 2, message: "unknown secure protocol"),
        BadOptionCase(arguments: ["--ciphers", "[AES128-SHA|AES256-SHA]"], status: 2, message: "invalid cipher list"),
        BadOptionCase(arguments: ["--ciphers", "NOTHING-KNOWN"], status: 2, message: "no known cipher suite"),
        BadOptionCase(arguments: ["--pinnedpubkey", "sha256//short"], status: 2, message: "is not the base64 of a 32-byte SHA-256 hash"),
        BadOptionCase(arguments: ["--pinnedpubkey", "/nonexistent/key.pem"], status: 1, message: "cannot read public key file"),
        BadOptionCase(arguments: ["--crl-file", "/nonexistent/crl.pem"], status: 1, message: "--crl-file: cannot read CRL file"),
        BadOptionCase(arguments: ["--ca-directory", "/nonexistent/dir"], status: 1, message: "cannot use CA directory '/nonexistent/dir'"),
        BadOptionCase(arguments: ["--certificate", "/nonexistent/c.pem"], status: 1, message: "cannot read '/nonexistent/c.pem'"),
    ]

    @Test(arguments: badOptions)
    func unusableOptionsStopTheRun(_ c: BadOptionCase) async throws {
        let result = try await Self.swget(c.arguments + ["https://localhost:1/x"])
        #expect(result.status == c.status, "\(result.stderr)")
        #expect(result.stderr.contains(c.message), "\(result.stderr)")
        #expect(!result.stderr.contains("localhost:1"), "nothing was fetched")
    }

    // MARK: verification controls

    struct PinCase: CustomTestStringConvertible, Sendable {
        let name: String
        /// "PIN" stands for the server's pin, "PUBPEM"/"PUBDER" for its key files.
        let pin: String
        let insecure: Bool
        let status: Int32
        var testDescription: String { name }
    }

    static let other = "sha256//" + String(repeating: "A", count: 43) + "="

    static let pins: [PinCase] = [
        PinCase(name: "the server's hash", pin: "PIN", insecure: false, status: 0),
        PinCase(name: "the server's key, PEM", pin: "PUBPEM", insecure: false, status: 0),
        PinCase(name: "the server's key, DER", pin: "PUBDER", insecure: false, status: 0),
        PinCase(name: "one of several hashes", pin: other + ";PIN", insecure: false, status: 0),
        PinCase(name: "another hash", pin: other, insecure: false, status: 5),
        PinCase(name: "another hash with --no-check-certificate", pin: other, insecure: true, status: 5),
        PinCase(name: "the server's hash with --no-check-certificate", pin: "PIN", insecure: true, status: 0),
    ]

    @Test(arguments: pins)
    func pinnedPublicKeys(_ c: PinCase) async throws {
        try await Self.withNginx { f in
            let pin = c.pin.replacingOccurrences(of: "PUBPEM", with: f.path("server.pub.pem"))
                .replacingOccurrences(of: "PUBDER", with: f.path("server.pub.der"))
                .replacingOccurrences(of: "PIN", with: try f.pki.serverPin())
            let trust = c.insecure ? ["--no-check-certificate"] : ["--cacert", f.path("ca.pem")]
            let result = try await Self.swget(["-q", "--pinnedpubkey", pin] + trust + ["-O", "-", f.nginx.httpsURL + "/hello.txt"])
            #expect(result.status == c.status, "\(result.stderr)")
            if c.status == 0 {
                #expect(result.stdoutText == "hello\n")
            } else {
                #expect(result.stderr.contains("public key pinning: the server's key \(try f.pki.serverPin()) is not pinned"), "\(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
        }
    }

    @Test func aRevokedCertificateFailsWithExit5() async throws {
        try await Self.withNginx(certificate: "revoked") { f in
            let result = try await Self.swget(["-q", "--ca-certificate", f.path("ca.pem"), "--crl-file", f.path("crl.pem"),
                                               "-O", "-", f.nginx.httpsURL + "/hello.txt"])
            #expect(result.status == 5)
            #expect(result.stderr.contains("certificate not trusted: certificate revoked: serial 2002"), "\(result.stderr)")
            let unchecked = try await Self.swget(["-q", "--ca-certificate", f.path("ca.pem"), "-O", "-", f.nginx.httpsURL + "/hello.txt"])
            #expect(unchecked.status == 0)
        }
    }

    @Test func aGoodCertificatePassesBothCRLEncodings() async throws {
        try await Self.withNginx { f in
            for (option, file) in [("--crl-file", "crl.pem"), ("--crlfile", "crl.der")] {
                let result = try await Self.swget(["-q", "--cacert", f.path("ca.pem"), option, f.path(file), "-O", "-",
                                                   f.nginx.httpsURL + "/hello.txt"])
                #expect(result.status == 0, "\(option): \(result.stderr)")
                #expect(result.stdoutText == "hello\n")
            }
        }
    }

    @Test func aCADirectoryIsTrusted() async throws {
        try await Self.withNginx { f in
            for option in ["--ca-directory", "--capath"] {
                let result = try await Self.swget(["-q", option, f.path("cadir"), "-O", "-", f.nginx.httpsURL + "/hello.txt"])
                #expect(result.status == 0, "\(result.stderr)")
            }
            let without = try await Self.swget(["-q", "-O", "-", f.nginx.httpsURL + "/hello.txt"])
            #expect(without.status == 5)
        }
    }

    // MARK: versions (openssl s_server)

    struct VersionCase: CustomTestStringConvertible, Sendable {
        let server: OpenSSLServer.Version
        let arguments: [String]
        /// nil: refused with exit 5.
        let negotiated: String?
        var testDescription: String { "\(server) \(arguments.joined(separator: " "))" }
    }

    static let versions: [VersionCase] = [
        VersionCase(server: .tls12, arguments: [], negotiated: "TLSv1.2"),
        VersionCase(server: .tls12, arguments: ["--tlsv1.2"], negotiated: "TLSv1.2"),
        VersionCase(server: .tls12, arguments: ["--tlsv1.3"], negotiated: nil),
        VersionCase(server: .tls12, arguments: ["--secure-protocol", "TLSv1_3"], negotiated: nil),
        VersionCase(server: .tls12, arguments: ["--secure-protocol", "PFS"], negotiated: "TLSv1.2"),
        VersionCase(server: .tls12, arguments: ["--ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256"], negotiated: "TLSv1.2"),
        VersionCase(server: .tls12, arguments: ["--ciphers", "AES128-GCM-SHA256"], negotiated: nil),
        VersionCase(server: .tls13, arguments: [], negotiated: "TLSv1.3"),
        VersionCase(server: .tls13, arguments: ["--tls-max", "1.2"], negotiated: nil),
        VersionCase(server: .tls13, arguments: ["--secure-protocol", "TLSv1_3"], negotiated: "TLSv1.3"),
    ]

    @Test(arguments: versions)
    func versionBounds(_ c: VersionCase) async throws {
        let pki = try Self.pki.get()
        let server = try await OpenSSLServer.start(certificate: pki.path("server.pem"), key: pki.path("server.key"), version: c.server)
        defer { server.stop() }
        let result = try await Self.swget(["-S", "--cacert", pki.path("ca.pem"), "-O", "-"] + c.arguments + [server.url])
        if let negotiated = c.negotiated {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("  TLS: \(negotiated), TLS_"), "\(result.stderr)")
            #expect(result.stdoutText.contains("New, \(negotiated)"))
        } else {
            #expect(result.status == 5, "\(result.stderr)")
            #expect(result.stderr.contains("TLS handshake failed: "), "\(result.stderr)")
            #expect(!result.stderr.contains("BoringSSL"), "said in words: \(result.stderr)")
        }
    }

    // MARK: --https-only

    @Test func httpsOnlyRefusesHTTPAndRedirectsToIt() async throws {
        try await Self.withNginx { f in
            let dir = try makeTemporaryDirectory()
            let plain = try await SwgetProcess.run(["--https-only", f.nginx.httpURL + "/hello.txt"], in: dir)
            #expect(plain.status == 1)
            #expect(plain.stderr.contains("refused: only https:// URLs are allowed (--https-only)"), "\(plain.stderr)")
            let redirected = try await SwgetProcess.run(["--https-only", "--cacert", f.path("ca.pem"), f.nginx.httpsURL + "/to-http/hello.txt"],
                                                        in: dir)
            #expect(redirected.status == 1)
            #expect(redirected.stderr.contains("redirect to http:// refused"), "\(redirected.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty, "nothing saved")
            // A mix: the https URL is fetched, the http one refused, the worst status wins.
            let mixed = try await SwgetProcess.run(["-q", "--https-only", "--cacert", f.path("ca.pem"), f.nginx.httpURL + "/hello.txt",
                                                    f.nginx.httpsURL + "/hello.txt"], in: dir)
            #expect(mixed.status == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["hello.txt"])
            // Without the option the redirect is followed.
            let followed = try await Self.swget(["-q", "--cacert", f.path("ca.pem"), "-O", "-", f.nginx.httpsURL + "/to-http/hello.txt"])
            #expect(followed.status == 0)
            #expect(followed.stdoutText == "hello\n")
        }
    }

    // MARK: resumption and -S

    @Test func parallelConnectionsMakeOneFullHandshake() async throws {
        // Two requests per connection: 20 files need at least 10 connections, 4 at a time.
        try await Self.withNginx(keepaliveRequests: 2) { f in
            let urls = (0..<20).map { f.nginx.httpsURL + "/f\($0 < 10 ? "0" : "")\($0).bin" }
            let dir = try makeTemporaryDirectory()
            let result = try await SwgetProcess.run(["-S", "-j", "4", "--cacert", f.path("ca.pem"), "-P", "out"] + urls, in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("  TLS: ") }
            #expect(lines.count >= 10, "\(result.stderr)")
            #expect(lines.filter { $0.contains(", new session (") }.count == 1, "\(lines)")
            #expect(lines.filter { $0.contains(", resumed session (") }.count == lines.count - 1)
            // nginx's view ($ssl_session_reused) of every connection it has logged agrees.
            #expect(f.nginx.fullHandshakes() <= 1, "\(f.nginx.accessLog())")
            #expect(f.nginx.connections().count >= 9, "\(f.nginx.accessLog())")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/out").count == 20)
            // curl's --no-sessionid: every connection handshakes in full.
            let off = try await SwgetProcess.run(["-S", "-j", "4", "--no-sessionid", "--cacert", f.path("ca.pem"), "-P", "off"] + urls, in: dir)
            let offLines = off.stderr.split(separator: "\n").filter { $0.hasPrefix("  TLS: ") }
            #expect(off.status == 0)
            #expect(offLines.count >= 10 && offLines.allSatisfy { $0.contains(", new session (") }, "\(offLines)")
        }
    }

    @Test func serverResponseShowsTheConnectionSanitised() async throws {
        try await Self.withNginx(certificate: "evil") { f in
            let result = try await Self.swget(["-S", "--cacert", f.path("ca.pem"), "-O", "-", f.nginx.httpsURL + "/hello.txt"])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n").map(String.init)
            let tls = try #require(lines.first { $0.hasPrefix("  TLS: ") })
            #expect(tls.hasPrefix("  TLS: TLSv1.3, TLS_"), "\(tls)")
            #expect(tls.hasSuffix(", new session (localhost:\(f.nginx.httpsPort))"))
            #expect(lines.contains("  Certificate subject: CN=evil\\x1B[31mred\\u{202E}txt"), "\(result.stderr)")
            #expect(lines.contains("  Certificate issuer: CN=swget TLS test CA,O=swget tests"), "\(result.stderr)")
            #expect(lines.contains { $0.hasPrefix("  Certificate valid: ") && $0.hasSuffix(" UTC") && $0.contains(" UTC to ") })
            #expect(!result.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" }, "nothing raw reaches the terminal")
            // Without -S, no TLS lines.
            let quiet = try await Self.swget(["--cacert", f.path("ca.pem"), "-O", "-", f.nginx.httpsURL + "/hello.txt"])
            #expect(!quiet.stderr.contains("TLS:"))
        }
    }
}
