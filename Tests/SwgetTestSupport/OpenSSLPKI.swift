import Crypto
import Foundation

/// A throwaway PKI made with the `openssl` command for the TLS controls' end-to-end tests, in a
/// fresh temporary directory (`path(_:)` names its files; `remove()` deletes them):
///
/// | file | what |
/// | --- | --- |
/// | `ca.pem`, `ca.key` | the CA (P-256), valid ten years |
/// | `server.pem`, `server.key` | a server leaf for `localhost` and 127.0.0.1 |
/// | `revoked.pem`, `revoked.key` | another server leaf, revoked by `crl.pem` |
/// | `crl.pem`, `crl.der` | the CA's CRL (30 days) listing `revoked.pem` |
/// | `evil.pem`, `evil.key` | a server leaf whose subject CN holds ESC, a CSI sequence and U+202E |
/// | `server.pub.pem`, `server.pub.der` | `server.pem`'s public key (for pins) |
/// | `client.pem`, `client.key`, `client.der`, `client.key.der` | a client leaf and its key, PEM and DER |
/// | `client-encrypted.key` | the client key, PKCS#8 encrypted with ``passphrase`` |
/// | `client-combined.pem` | client certificate and key in one PEM file |
/// | `cadir/` | a CA directory holding `ca.pem` and its OpenSSL hash link (`openssl rehash`) |
public struct OpenSSLPKI: Sendable {
    /// The directory holding everything.
    public let directory: String
    /// The passphrase of `client-encrypted.key`.
    public static let passphrase = "s3cret pass"
    /// The subject CN of `evil.pem`: an escape sequence and a right-to-left override.
    public static let evilCommonName = "evil\u{1B}[31mred\u{202E}txt"

    /// The path of `name` in the PKI's directory.
    public func path(_ name: String) -> String { directory + "/" + name }

    /// Deletes the directory.
    public func remove() { try? FileManager.default.removeItem(atPath: directory) }

    /// Makes a fresh PKI. Throws `RealServerError` with openssl's message when a step fails
    /// (openssl missing: the README's test command installs it).
    public static func make() throws -> OpenSSLPKI {
        let directory = try makeTemporaryDirectory(prefix: "swget-pki")
        let pki = OpenSSLPKI(directory: directory)
        do {
            try pki.generate()
        } catch {
            pki.remove()
            throw error
        }
        return pki
    }

    /// Runs openssl with `arguments` in the directory, returns its standard output.
    @discardableResult
    public func openssl(_ arguments: [String]) throws -> String {
        guard let binary = SwgetProcess.findExecutable("openssl") else {
            throw RealServerError("openssl not found (install it with scripts/install-deps --test)")
        }
        // posix_spawn, not Foundation's Process: Process.run enumerates /proc/self/fd and crashed
        // (SIGSEGV in findMaximumOpenFromProcSelfFD) while other tests opened and closed files.
        let result = try SwgetProcess.runBlocking(executable: binary, arguments: arguments, directory: directory,
                                                  environment: [:], stdin: nil, timeout: .seconds(120))
        guard result.status == 0 else {
            throw RealServerError("openssl \(arguments.joined(separator: " ")): \(result.stderr)")
        }
        return result.stdoutText
    }

    private func write(_ text: String, _ name: String) throws {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
    }

    private func generate() throws {
        try write("""
            [ ca ]
            default_ca = CA_default
            [ CA_default ]
            database = index.txt
            crlnumber = crlnumber
            default_md = sha256
            default_crl_days = 30
            """, "ca.cnf")
        try write("", "index.txt")
        try write("01\n", "crlnumber")
        let ec = ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]
        try openssl(["genpkey"] + ec + ["-out", "ca.key"])
        try openssl(["req", "-x509", "-new", "-key", "ca.key", "-out", "ca.pem", "-days", "3650", "-subj", "/O=swget tests/CN=swget TLS test CA",
                     "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        try write("basicConstraints=CA:FALSE\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n", "server.ext")
        try write("basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n", "client.ext")
        let leaves = [("server", "/CN=localhost", "server.ext", "0x2001"), ("revoked", "/CN=localhost (revoked)", "server.ext", "0x2002"),
                      ("client", "/O=swget tests/CN=swget client", "client.ext", "0x2003"),
                      ("evil", "/CN=" + Self.evilCommonName, "server.ext", "0x2004")]
        for (name, subject, extensions, serial) in leaves {
            try openssl(["genpkey"] + ec + ["-out", "\(name).key"])
            try openssl(["req", "-new", "-utf8", "-key", "\(name).key", "-out", "\(name).csr", "-subj", subject])
            try openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", serial,
                         "-days", "365", "-extfile", extensions, "-out", "\(name).pem"])
        }
        try openssl(["ca", "-config", "ca.cnf", "-keyfile", "ca.key", "-cert", "ca.pem", "-revoke", "revoked.pem"])
        try openssl(["ca", "-config", "ca.cnf", "-keyfile", "ca.key", "-cert", "ca.pem", "-gencrl", "-out", "crl.pem"])
        try openssl(["crl", "-in", "crl.pem", "-outform", "DER", "-out", "crl.der"])
        try openssl(["x509", "-in", "server.pem", "-pubkey", "-noout", "-out", "server.pub.pem"])
        try openssl(["pkey", "-pubin", "-in", "server.pub.pem", "-outform", "DER", "-out", "server.pub.der"])
        try openssl(["x509", "-in", "client.pem", "-outform", "DER", "-out", "client.der"])
        try openssl(["pkey", "-in", "client.key", "-outform", "DER", "-out", "client.key.der"])
        try openssl(["pkcs8", "-topk8", "-in", "client.key", "-v2", "aes256", "-passout", "pass:\(Self.passphrase)",
                     "-out", "client-encrypted.key"])
        try write(try String(contentsOfFile: path("client.pem"), encoding: .utf8) + String(contentsOfFile: path("client.key"), encoding: .utf8),
                  "client-combined.pem")
        try FileManager.default.createDirectory(atPath: path("cadir"), withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: path("ca.pem"), toPath: path("cadir/ca.pem"))
        try openssl(["rehash", "cadir"])
    }

    /// `sha256//BASE64` of `server.pem`'s public key, as `--pinnedpubkey` takes it.
    public func serverPin() throws -> String {
        let der = try Data(contentsOf: URL(fileURLWithPath: path("server.pub.der")))
        return "sha256//" + Data(SHA256.hash(data: der)).base64EncodedString()
    }
}
