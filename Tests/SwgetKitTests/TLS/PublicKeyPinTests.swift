import Crypto
import Foundation
import Testing
import X509
@testable import SwgetKit

@Suite("TLS: public key pinning (--pinnedpubkey)")
struct PublicKeyPinTests {
    static func pki() throws -> TLSTestPKI { try TLSTestPKI.shared.get() }

    /// The leaf certificate DER of `name`.pem.
    static func der(_ name: String) throws -> [UInt8] {
        let pem = try String(contentsOfFile: try pki().path(name + ".pem"), encoding: .utf8)
        return try Certificate(pemEncoded: pem).serializeAsPEM().derBytes
    }

    /// The pin openssl computes: `openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64`.
    static func opensslPin(_ name: String) throws -> String {
        let pki = try pki()
        let spki = try pki.bytes(name + ".pub.der")
        return "sha256//" + Data(SHA256.hash(data: spki)).base64EncodedString()
    }

    @Test func spkiIsExtractedExactly() throws {
        let pki = try Self.pki()
        let spki = try #require(PublicKeyPin.subjectPublicKeyInfo(ofCertificate: try Self.der("good")))
        #expect(spki == (try pki.bytes("good.pub.der")))
        #expect(PublicKeyPin.pinString(subjectPublicKeyInfo: spki) == (try Self.opensslPin("good")))
    }

    @Test func pinsMatchTheLeafOnly() throws {
        let good = try Self.der("good"), other = try Self.der("client"), ca = try Self.der("ca")
        let byHash = try PublicKeyPin(argument: try Self.opensslPin("good"))
        let byPEM = try PublicKeyPin(argument: try Self.pki().path("good.pub.pem"))
        let byDER = try PublicKeyPin(argument: try Self.pki().path("good.pub.der"))
        for pin in [byHash, byPEM, byDER] {
            #expect(pin.mismatch(chain: [good, ca]) == nil)
            #expect(pin.mismatch(chain: [other, ca])?.hasPrefix("public key pinning: the server's key sha256//") == true)
            // The pinned key further up the chain does not count: curl compares the leaf.
            #expect(pin.mismatch(chain: [other, good]) != nil)
            #expect(pin.mismatch(chain: []) != nil)
        }
        #expect(byHash == byPEM && byPEM == byDER)
    }

    @Test func severalPinsAnyMatches() throws {
        let zero = "sha256//" + Data(repeating: 0, count: 32).base64EncodedString()
        let pin = try PublicKeyPin(hashList: "\(zero);\(try Self.opensslPin("good"));\(zero)")
        #expect(pin.sha256Hashes.count == 2)
        #expect(pin.mismatch(chain: [try Self.der("good")]) == nil)
        #expect(pin.mismatch(chain: [try Self.der("revoked")]) != nil)
    }

    struct BadCase: CustomTestStringConvertible, Sendable {
        let argument: String
        let message: String
        var testDescription: String { String(argument.prefix(40)) }
    }

    static let zero32 = Data(repeating: 0, count: 32).base64EncodedString()
    static let bad: [BadCase] = [
        BadCase(argument: "sha256//", message: "not the base64"),
        BadCase(argument: "sha256//AAAA", message: "not the base64 of a 32-byte"),
        BadCase(argument: "sha256//" + zero32.dropLast(), message: "not the base64"),
        BadCase(argument: "sha256//!!!!", message: "not the base64"),
        BadCase(argument: "sha256//\(zero32);", message: "not of the form"),
        BadCase(argument: "sha256//\(zero32);;sha256//\(zero32)", message: "not of the form"),
        BadCase(argument: "sha256//\(zero32);sha1//AAAA", message: "'sha1//AAAA' is not of the form"),
        BadCase(argument: "sha256//\(zero32); sha256//\(zero32)", message: "not of the form"),
        BadCase(argument: "sha256//\u{1}\u{2}", message: "'sha256//??' is not"),
        BadCase(argument: Array(repeating: "sha256//\(zero32)", count: 300).joined(separator: ";"), message: "more than 256 pins"),
        BadCase(argument: "sha256//" + String(repeating: "A", count: 70_000), message: "pin list too long"),
        BadCase(argument: "/nonexistent/key.pem", message: "cannot read public key file '/nonexistent/key.pem'"),
    ]

    @Test(arguments: bad)
    func badArguments(_ c: BadCase) {
        do {
            _ = try PublicKeyPin(argument: c.argument)
            Issue.record("expected an error")
        } catch {
            #expect(error.reason.contains(c.message), "\(error.reason)")
            #expect(error.description.hasPrefix("--pinnedpubkey: "))
        }
    }

    @Test func badKeyFiles() throws {
        let pki = try Self.pki()
        let directory = pki.directory
        try "-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----\n".write(toFile: directory + "/corrupt.pub", atomically: true, encoding: .utf8)
        try "-----BEGIN PUBLIC KEY-----\nMAA=\n-----END PUBLIC KEY-----\n".write(toFile: directory + "/empty-seq.pub", atomically: true, encoding: .utf8)
        try Data([0x30, 0x03, 0x02, 0x01, 0x01]).write(to: URL(fileURLWithPath: directory + "/integer.der"))
        let cases: [(String, String)] = [
            ("good.pem", "holds a certificate, not a public key"),
            ("client.key", "no 'BEGIN PUBLIC KEY' block"),
            ("corrupt.pub", "corrupt base64"),
            ("empty-seq.pub", "not a DER SubjectPublicKeyInfo"),
            ("integer.der", "neither a PEM nor a DER public key"),
            ("crl.der", "neither a PEM nor a DER public key"),
        ]
        for (file, message) in cases {
            do {
                _ = try PublicKeyPin(contentsOfFile: pki.path(file))
                Issue.record("expected an error for \(file)")
            } catch {
                #expect(error.reason.contains(message), "\(file): \(error.reason)")
            }
        }
        // The DER key with trailing bytes is refused too.
        var der = try pki.bytes("good.pub.der")
        der.append(0)
        #expect(throws: PublicKeyPinError.self) { try PublicKeyPin(subjectPublicKeyInfo: der) }
    }

    @Test func malformedCertificatesGiveAReason() {
        let pin = try? PublicKeyPin(sha256Hashes: [Array(repeating: 1, count: 32)])
        #expect(pin?.mismatch(chain: [[0x30, 0x00]]) == "public key pinning: cannot read the server certificate's public key")
        #expect(pin?.mismatch(chain: [Array(repeating: 0xFF, count: 100)]) != nil)
        #expect(throws: PublicKeyPinError.self) { try PublicKeyPin(sha256Hashes: []) }
        #expect(throws: PublicKeyPinError.self) { try PublicKeyPin(sha256Hashes: [[1, 2, 3]]) }
    }
}
