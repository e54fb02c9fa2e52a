import Foundation
import SwgetTestSupport

/// A small PKI made with the `openssl` command once per test run: a CA (with a CRL revoking one
/// certificate), server and client certificates, keys in every encoding the loaders accept.
/// Files live in one temporary directory; `path(_:)` names them.
struct TLSTestPKI: Sendable {
    let directory: String
    static let passphrase = "s3cret:pass"

    static let shared = Result { try TLSTestPKI.make() }

    func path(_ name: String) -> String { directory + "/" + name }
    func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path(name)))) }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs openssl with `arguments` in the PKI directory; throws with its stderr on failure.
    @discardableResult
    static func openssl(_ arguments: [String], in directory: String) throws -> String {
        // posix_spawn, not Foundation's Process (see OpenSSLPKI.openssl).
        let result = try SwgetProcess.runBlocking(executable: "/usr/bin/openssl", arguments: arguments, directory: directory,
                                                  environment: [:], stdin: nil, timeout: .seconds(120))
        guard result.status == 0 else {
            throw Failure(description: "openssl \(arguments.joined(separator: " ")): \(result.stderr)")
        }
        return result.stdoutText
    }

    static func make() throws -> TLSTestPKI {
        let directory = NSTemporaryDirectory() + "swget-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let run = { (arguments: [String]) throws -> Void in _ = try openssl(arguments, in: directory) }
        let config = """
            [ ca ]
            default_ca = CA_default
            [ CA_default ]
            database = index.txt
            crlnumber = crlnumber
            default_md = sha256
            default_crl_days = 30
            crl_extensions = crl_ext
            [ crl_ext ]
            authorityKeyIdentifier = keyid:always
            [ crit_ext ]
            1.2.3.4 = critical,ASN1:NULL
            [ idp_ext ]
            issuingDistributionPoint = critical,@idp
            [ idp ]
            fullname = URI:http://crl.example/part1.crl
            onlyuser = TRUE
            """
        try config.write(toFile: directory + "/ca.cnf", atomically: true, encoding: .utf8)
        try "".write(toFile: directory + "/index.txt", atomically: true, encoding: .utf8)
        try "01\n".write(toFile: directory + "/crlnumber", atomically: true, encoding: .utf8)
        let ec = ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]
        // The CA, and an impostor CA with the same name but another key.
        for name in ["ca", "impostor"] {
            try run(["genpkey"] + ec + ["-out", "\(name).key"])
            try run(["req", "-x509", "-new", "-key", "\(name).key", "-out", "\(name).pem", "-days", "3650", "-subj", "/CN=swget Test CA",
                     "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        }
        try "basicConstraints=CA:FALSE\nsubjectAltName=DNS:localhost\n".write(toFile: directory + "/leaf.ext", atomically: true, encoding: .utf8)
        try "basicConstraints=CA:FALSE\nsubjectAltName=DNS:localhost\ncrlDistributionPoints=URI:http://crl.example/part1.crl\n"
            .write(toFile: directory + "/dp.ext", atomically: true, encoding: .utf8)
        // Leaf certificates: good, revoked, client (EC) and rsa-client (RSA).
        let leaves: [(String, String, [String])] = [("good", "0x1001", ec), ("revoked", "0x1002", ec), ("client", "0x1003", ec),
                                                    ("rsa-client", "0x1004", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]),
                                                    ("dp-leaf", "0x1005", ec)]
        for (name, serial, algorithm) in leaves {
            try run(["genpkey"] + algorithm + ["-out", "\(name).key"])
            try run(["req", "-new", "-key", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(name)"])
            try run(["x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", serial,
                     "-days", "365", "-extfile", name == "dp-leaf" ? "dp.ext" : "leaf.ext", "-out", "\(name).pem"])
        }
        // The CRL revoking 0x1002, in PEM and DER; and one by the impostor.
        try run(["ca", "-config", "ca.cnf", "-keyfile", "ca.key", "-cert", "ca.pem", "-revoke", "revoked.pem", "-crl_reason", "keyCompromise"])
        try run(["ca", "-config", "ca.cnf", "-keyfile", "ca.key", "-cert", "ca.pem", "-gencrl", "-out", "crl.pem"])
        try run(["crl", "-in", "crl.pem", "-outform", "DER", "-out", "crl.der"])
        for section in ["crit_ext", "idp_ext"] {
            try run(["ca", "-config", "ca.cnf", "-keyfile", "ca.key", "-cert", "ca.pem", "-gencrl", "-crlexts", section, "-out", "\(section)-crl.pem"])
        }
        try run(["ca", "-config", "ca.cnf", "-keyfile", "impostor.key", "-cert", "impostor.pem", "-gencrl", "-out", "impostor-crl.pem"])
        // Client key encodings.
        try run(["x509", "-in", "client.pem", "-outform", "DER", "-out", "client.der"])
        try run(["pkey", "-in", "client.key", "-outform", "DER", "-out", "client.key.der"])
        try run(["pkey", "-in", "client.key", "-aes256", "-passout", "pass:\(passphrase)", "-out", "client-encrypted.key"])
        try run(["pkcs8", "-topk8", "-in", "client.key", "-outform", "DER", "-v2", "aes256", "-passout", "pass:\(passphrase)",
                 "-out", "client-encrypted.key.der"])
        try run(["rsa", "-in", "rsa-client.key", "-traditional", "-aes128", "-passout", "pass:\(passphrase)", "-out", "rsa-client-encrypted.key"])
        let combined = try String(contentsOfFile: directory + "/client.pem", encoding: .utf8)
            + String(contentsOfFile: directory + "/ca.pem", encoding: .utf8)
            + String(contentsOfFile: directory + "/client.key", encoding: .utf8)
        try combined.write(toFile: directory + "/client-combined.pem", atomically: true, encoding: .utf8)
        // Public keys for pinning.
        try run(["x509", "-in", "good.pem", "-pubkey", "-noout", "-out", "good.pub.pem"])
        try run(["pkey", "-pubin", "-in", "good.pub.pem", "-outform", "DER", "-out", "good.pub.der"])
        try run(["pkey", "-in", "rsa-client.key", "-traditional", "-out", "rsa-client.traditional.key"])
        return TLSTestPKI(directory: directory)
    }
}
