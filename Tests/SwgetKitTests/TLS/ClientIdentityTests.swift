import Foundation
import NIOSSL
import Testing
@testable import SwgetKit

@Suite("TLS: client identity loading")
struct ClientIdentityTests {
    static func pki() throws -> TLSTestPKI { try TLSTestPKI.shared.get() }
    static let pass = TLSTestPKI.passphrase

    struct LoadCase: CustomTestStringConvertible, Sendable {
        let name: String
        let certificate: String
        var certificateFormat: TLSFileFormat = .pem
        var key: String?
        var keyFormat: TLSFileFormat = .pem
        var passphrase: String?
        /// nil: loads, with `chainLength` certificates.
        var error: ClientIdentityError.Kind?
        var chainLength = 1
        var testDescription: String { name }
    }

    static let cases: [LoadCase] = [
        LoadCase(name: "PEM certificate and key", certificate: "client.pem", key: "client.key"),
        LoadCase(name: "combined PEM (certificate, CA, key)", certificate: "client-combined.pem", chainLength: 2),
        LoadCase(name: "DER certificate and key", certificate: "client.der", certificateFormat: .der, key: "client.key.der", keyFormat: .der),
        LoadCase(name: "PEM certificate, DER key", certificate: "client.pem", key: "client.key.der", keyFormat: .der),
        LoadCase(name: "encrypted PKCS#8, right passphrase", certificate: "client.pem", key: "client-encrypted.key", passphrase: pass),
        LoadCase(name: "encrypted PKCS#8, no passphrase", certificate: "client.pem", key: "client-encrypted.key", error: .passphraseRequired),
        LoadCase(name: "encrypted PKCS#8, wrong passphrase", certificate: "client.pem", key: "client-encrypted.key", passphrase: "nope",
                 error: .wrongPassphrase),
        LoadCase(name: "encrypted PKCS#8, empty passphrase", certificate: "client.pem", key: "client-encrypted.key", passphrase: "",
                 error: .wrongPassphrase),
        LoadCase(name: "traditional encrypted RSA, right passphrase", certificate: "rsa-client.pem", key: "rsa-client-encrypted.key",
                 passphrase: pass),
        LoadCase(name: "traditional encrypted RSA, wrong passphrase", certificate: "rsa-client.pem", key: "rsa-client-encrypted.key",
                 passphrase: "s3cret", error: .wrongPassphrase),
        LoadCase(name: "traditional RSA key, passphrase ignored", certificate: "rsa-client.pem", key: "rsa-client.traditional.key",
                 passphrase: "unused"),
        LoadCase(name: "encrypted DER key", certificate: "client.pem", key: "client-encrypted.key.der", keyFormat: .der,
                 passphrase: pass, error: .invalidPrivateKey),
        LoadCase(name: "key of another certificate", certificate: "client.pem", key: "good.key", error: .keyMismatch),
        LoadCase(name: "RSA key for an EC certificate", certificate: "client.pem", key: "rsa-client.key", error: .keyMismatch),
        LoadCase(name: "no key in the certificate file", certificate: "client.pem", error: .noPrivateKey),
        LoadCase(name: "DER certificate without key file", certificate: "client.der", certificateFormat: .der, error: .noPrivateKey),
        LoadCase(name: "a certificate as key file", certificate: "client.pem", key: "ca.pem", error: .noPrivateKey),
        LoadCase(name: "a key as certificate file", certificate: "client.key", key: "client.key", error: .noCertificate),
        LoadCase(name: "PEM file declared DER", certificate: "client.pem", certificateFormat: .der, key: "client.key", error: .noCertificate),
        LoadCase(name: "PEM key declared DER", certificate: "client.pem", key: "client.key", keyFormat: .der, error: .invalidPrivateKey),
        LoadCase(name: "missing certificate file", certificate: "missing.pem", key: "client.key", error: .unreadableFile),
        LoadCase(name: "missing key file", certificate: "client.pem", key: "missing.key", error: .unreadableFile),
        LoadCase(name: "directory as certificate", certificate: ".", key: "client.key", error: .unreadableFile),
    ]

    @Test(arguments: cases)
    func load(_ c: LoadCase) throws {
        let pki = try Self.pki()
        do {
            let identity = try ClientIdentity.load(certificateFile: pki.path(c.certificate), certificateFormat: c.certificateFormat,
                                                   privateKeyFile: c.key.map(pki.path), privateKeyFormat: c.keyFormat,
                                                   passphrase: c.passphrase)
            #expect(c.error == nil, "loaded, expected \(String(describing: c.error))")
            #expect(identity.certificateChain.count == c.chainLength)
            #expect(identity.leafCertificate != nil)
        } catch {
            #expect(error.kind == c.error, "\(error.message)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func messagesNameTheFile() throws {
        let pki = try Self.pki()
        do {
            _ = try ClientIdentity.load(certificateFile: pki.path("client.pem"), privateKeyFile: pki.path("client-encrypted.key"), passphrase: "x")
        } catch {
            #expect(error.message == "wrong passphrase for the private key in '\(pki.path("client-encrypted.key"))'")
        }
        do {
            _ = try ClientIdentity.load(certificateFile: pki.path("client.pem"), privateKeyFile: pki.path("good.key"))
        } catch {
            #expect(error.message.contains("does not belong to the certificate in '\(pki.path("client.pem"))'"))
        }
    }

    @Test func encryptedKeysAreRecognised() throws {
        let pki = try Self.pki()
        #expect(ClientIdentity.isEncryptedPEMKey(bytes: try pki.bytes("client-encrypted.key")))
        #expect(ClientIdentity.isEncryptedPEMKey(bytes: try pki.bytes("rsa-client-encrypted.key")))
        #expect(!ClientIdentity.isEncryptedPEMKey(bytes: try pki.bytes("client.key")))
        #expect(!ClientIdentity.isEncryptedPEMKey(bytes: try pki.bytes("client.pem")))
    }

    @Test func identitiesCompareByValue() throws {
        let pki = try Self.pki()
        let a = try ClientIdentity.load(certificateFile: pki.path("client.pem"), privateKeyFile: pki.path("client.key"))
        let b = try ClientIdentity.load(certificateFile: pki.path("client.der"), certificateFormat: .der,
                                        privateKeyFile: pki.path("client-encrypted.key"), passphrase: Self.pass)
        #expect(a == b)
        #expect(throws: ClientIdentityError.self) { try ClientIdentity(certificateChain: [], privateKey: a.privateKey) }
        var configuration = TLSConfiguration.makeClientConfiguration()
        a.configure(&configuration)
        #expect(configuration.certificateChain.count == 1 && configuration.privateKey != nil)
    }

    struct SplitCase: CustomTestStringConvertible, Sendable {
        let argument: String
        let file: String
        let passphrase: String?
        var testDescription: String { argument.isEmpty ? "(empty)" : argument }
    }

    static let splits: [SplitCase] = [
        SplitCase(argument: "cert.pem", file: "cert.pem", passphrase: nil),
        SplitCase(argument: "cert.pem:secret", file: "cert.pem", passphrase: "secret"),
        SplitCase(argument: "cert.pem:pass:word", file: "cert.pem", passphrase: "pass:word"),
        SplitCase(argument: "cert.pem:", file: "cert.pem", passphrase: nil),
        SplitCase(argument: "c\\:ert.pem:pw", file: "c:ert.pem", passphrase: "pw"),
        SplitCase(argument: "dir\\\\name:pw", file: "dir\\name", passphrase: "pw"),
        SplitCase(argument: "a\\b.pem", file: "a\\b.pem", passphrase: nil),
        SplitCase(argument: "trailing\\", file: "trailing\\", passphrase: nil),
        SplitCase(argument: "pw\\ends:se\\:cret", file: "pw\\ends", passphrase: "se\\:cret"),
        SplitCase(argument: "pkcs11:token=x;object=y", file: "pkcs11:token=x;object=y", passphrase: nil),
        SplitCase(argument: ":onlypass", file: "", passphrase: "onlypass"),
        SplitCase(argument: "", file: "", passphrase: nil),
        SplitCase(argument: "/päth/ü.pem:päss", file: "/päth/ü.pem", passphrase: "päss"),
    ]

    @Test(arguments: splits)
    func curlCertificateArgument(_ c: SplitCase) {
        let (file, passphrase) = ClientIdentity.splitCurlCertificateArgument(c.argument)
        #expect(file == c.file)
        #expect(passphrase == c.passphrase)
    }

    @Test(arguments: [("PEM", TLSFileFormat.pem), ("pem", .pem), ("DER", .der), ("Der", .der), ("ASN1", .der)])
    func formats(_ name: String, _ format: TLSFileFormat) throws {
        #expect(try TLSFileFormat(parsing: name) == format)
    }

    @Test(arguments: ["P12", "ENG", "", "pem ", "pém"])
    func unsupportedFormats(_ name: String) {
        #expect(throws: ClientIdentityError.self) { try TLSFileFormat(parsing: name) }
    }
}
