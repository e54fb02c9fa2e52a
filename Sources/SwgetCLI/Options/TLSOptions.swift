import ArgumentParser
import SwgetKit

/// TLS: trust, revocation, pinning, client certificates, versions and ciphers; wget's and curl's
/// names for each. Option values are checked by `validate()` (exit 2); the files they name are
/// read by ``load(into:)`` before any download (exit 1 when one cannot be used, wget's
/// "SSL initialisation failed").
struct TLSOptions: ParsableArguments {
    @Option(name: [.customLong("ca-certificate"), .customLong("cacert")],
            help: ArgumentHelp("Trust the CA certificates in FILE (PEM) too.", valueName: "FILE"),
            completion: .file())
    var caCertificate: [String] = []

    @Option(name: [.customLong("ca-directory"), .customLong("capath")],
            help: ArgumentHelp("Trust the CA certificates in DIR too (OpenSSL's hashed directory, or *.pem/*.crt files).",
                               valueName: "DIR"),
            completion: .directory)
    var caDirectory: [String] = []

    @Flag(name: [.customLong("no-check-certificate"), .customLong("insecure"), .customShort("k")],
          help: "Do not verify the server's certificate (a --pinnedpubkey still applies).")
    var noCheckCertificate = false

    @Option(name: [.customLong("crl-file"), .customLong("crlfile")],
            help: ArgumentHelp("""
                Check revocation against the CRLs in FILE (PEM or DER); every certificate of the chain \
                then needs a current CRL from its issuer. A revoked certificate fails with exit 5.
                """, valueName: "FILE"),
            completion: .file())
    var crlFile: [String] = []

    @Option(name: .customLong("pinnedpubkey"),
            help: ArgumentHelp("""
                Require the server's public key: a PEM or DER public key file, or sha256//BASE64[;sha256//...]. \
                A mismatch fails with exit 5, also with --no-check-certificate.
                """, valueName: "PINS"))
    var pinnedPublicKey: String?

    @Option(name: .customLong("certificate"),
            help: ArgumentHelp("Present the client certificate in FILE (its chain may follow; the key too, in PEM).",
                               valueName: "FILE"),
            completion: .file())
    var certificate: String?

    @Option(name: .customLong("cert"),
            help: ArgumentHelp("curl's --certificate, with an optional key passphrase after a colon (\\: for a colon in FILE).",
                               valueName: "FILE[:PASSWORD]"),
            completion: .file())
    var curlCertificate: String?

    @Option(name: [.customLong("certificate-type"), .customLong("cert-type")],
            help: ArgumentHelp("The client certificate's encoding: PEM (default) or DER.", valueName: "TYPE"))
    var certificateType: String?

    @Option(name: [.customLong("private-key"), .customLong("key")],
            help: ArgumentHelp("The client certificate's private key, when not in the certificate file.", valueName: "FILE"),
            completion: .file())
    var privateKey: String?

    @Option(name: [.customLong("private-key-type"), .customLong("key-type")],
            help: ArgumentHelp("The private key's encoding: PEM (default) or DER.", valueName: "TYPE"))
    var privateKeyType: String?

    @Option(name: .customLong("pass"),
            help: ArgumentHelp("The passphrase of an encrypted private key (asked on the terminal when missing).",
                               valueName: "PHRASE"))
    var passphrase: String?

    @Option(name: .customLong("secure-protocol"),
            help: ArgumentHelp("auto (TLS 1.2 or later, the default), TLSv1_2, TLSv1_3, or PFS (forward-secret ciphers only).",
                               valueName: "PROTOCOL"))
    var secureProtocol: String?

    // curl's names have a dot, which fish's argparse cannot take in an option spec (its
    // completion script would loop): the dotless spelling comes first, so the spec uses it.
    @Flag(name: [.customLong("tlsv1_2"), .customLong("tlsv1.2")], help: "Use TLS 1.2 or later (the default).")
    var tls12 = false

    @Flag(name: [.customLong("tlsv1_3"), .customLong("tlsv1.3")], help: "Use TLS 1.3 only.")
    var tls13 = false

    @Option(name: .customLong("tls-max"),
            help: ArgumentHelp("The highest TLS version to use: 1.2, 1.3 or default.", valueName: "VERSION"))
    var tlsMax: String?

    @Option(name: .customLong("ciphers"),
            help: ArgumentHelp("The TLS 1.2 cipher suites to offer, an OpenSSL cipher list (TLS 1.3 suites are fixed).",
                               valueName: "LIST"))
    var ciphers: String?

    @Flag(name: .customLong("no-sessionid"),
          help: "Do not resume TLS sessions: every new connection makes a full handshake.")
    var noSessionID = false

    @Flag(name: .customLong("https-only"),
          help: "Refuse http:// URLs and redirects to http:// (exit 1).")
    var httpsOnly = false
}

extension TLSOptions {
    func validate() throws {
        do {
            _ = try versionPolicy()
            _ = try certificateType.map(TLSFileFormat.init(parsing:))
            _ = try privateKeyType.map(TLSFileFormat.init(parsing:))
        } catch {
            throw ValidationError(String(describing: error))
        }
        if certificate != nil && curlCertificate != nil {
            throw ValidationError("--certificate and --cert name the same thing: give one of them")
        }
        if privateKey != nil && certificate == nil && curlCertificate == nil {
            throw ValidationError("--private-key needs --certificate")
        }
        if let pinnedPublicKey, pinnedPublicKey.hasPrefix("sha256//") {
            do { _ = try PublicKeyPin(hashList: pinnedPublicKey) } catch { throw ValidationError(error.description) }
        }
    }

    /// The version bounds and ciphers the options ask for.
    func versionPolicy() throws(TLSVersionPolicyError) -> TLSVersionPolicy {
        let secure = try secureProtocol.map(TLSVersionPolicy.SecureProtocol.init(parsing:)) ?? .auto
        var minimums: [TLSVersionPolicy.Version] = []
        if tls12 { minimums.append(.tls1_2) }
        if tls13 { minimums.append(.tls1_3) }
        return try TLSVersionPolicy(secureProtocol: secure, minimums: minimums, maximum: tlsMax, ciphers: ciphers)
    }

    /// The client certificate file and the passphrase given with it (`--cert FILE:PASSWORD`,
    /// `--pass`), nil when no client certificate is asked for.
    var clientCertificate: (file: String, passphrase: String?)? {
        if let certificate { return (certificate, passphrase) }
        guard let curlCertificate else { return nil }
        let (file, inline) = ClientIdentity.splitCurlCertificateArgument(curlCertificate)
        return (file, passphrase ?? inline)
    }
}
