import Foundation
import Testing
import X509
@testable import SwgetKit

@Suite("TLS: CA directories (--ca-directory / --capath)")
struct CADirectoryTests {
    static func pki() throws -> TLSTestPKI { try TLSTestPKI.shared.get() }

    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "swget-capath-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func certificate(_ name: String) throws -> Certificate {
        try Certificate(pemEncoded: String(contentsOfFile: try pki().path(name + ".pem"), encoding: .utf8))
    }

    @Test func aRehashedDirectory() throws {
        let pki = try Self.pki()
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let manager = FileManager.default
        try manager.copyItem(atPath: pki.path("ca.pem"), toPath: directory + "/ca.pem")
        try manager.copyItem(atPath: pki.path("impostor.pem"), toPath: directory + "/impostor.pem")
        try TLSTestPKI.openssl(["rehash", "."], in: directory)
        let hash = try TLSTestPKI.openssl(["x509", "-hash", "-noout", "-in", "ca.pem"], in: directory)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // Same subject, two keys: HASH.0 and HASH.1, links to the two files.
        #expect(Set(try manager.contentsOfDirectory(atPath: directory)) == ["ca.pem", "impostor.pem", hash + ".0", hash + ".1"])
        let both = try CADirectory.load(path: directory)
        #expect(Set(both.certificates) == [try Self.certificate("ca"), try Self.certificate("impostor")])
        #expect(both.certificates.count == 2 && both.skipped.isEmpty)
        // A dangling link is skipped with its reason.
        try manager.removeItem(atPath: directory + "/impostor.pem")
        let one = try CADirectory.load(path: directory)
        #expect(one.certificates == [try Self.certificate("ca")])
        #expect(one.skipped.map(\.reason) == ["No such file or directory"])
        // Hash-named files alone (a directory never given *.pem names) work too.
        let hashOnly = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: hashOnly) }
        try manager.copyItem(atPath: pki.path("ca.pem"), toPath: hashOnly + "/" + hash + ".0")
        #expect(try CADirectory.load(path: hashOnly).certificates == [try Self.certificate("ca")])
    }

    @Test func mixedFilesAreReadOrSkipped() throws {
        let pki = try Self.pki()
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let manager = FileManager.default
        try manager.copyItem(atPath: pki.path("client-combined.pem"), toPath: directory + "/bundle.PEM")   // client + CA + key
        try manager.copyItem(atPath: pki.path("client.der"), toPath: directory + "/client.cer")
        try manager.copyItem(atPath: pki.path("good.key"), toPath: directory + "/key.crt")
        try manager.copyItem(atPath: pki.path("crl.pem"), toPath: directory + "/0123abcd.r0")                // CRLs are not looked at
        try manager.copyItem(atPath: pki.path("ca.pem"), toPath: directory + "/README")                     // nor other names
        try manager.copyItem(atPath: pki.path("ca.pem"), toPath: directory + "/.hidden.pem")
        try manager.createDirectory(atPath: directory + "/sub.pem", withIntermediateDirectories: false)
        try Data(count: CADirectory.maximumFileSize + 1).write(to: URL(fileURLWithPath: directory + "/big.pem"))
        try "junk".write(toFile: directory + "/ffffffff.0", atomically: true, encoding: .utf8)
        let contents = try CADirectory.load(path: directory + "/")
        // Certificates in name order, each once: bundle.PEM gives client and CA, client.cer the client again.
        #expect(contents.certificates == [try Self.certificate("client"), try Self.certificate("ca")])
        #expect(contents.skipped.map(\.file) == ["big.pem", "ffffffff.0", "key.crt", "sub.pem"])
        #expect(contents.skipped.map(\.reason) == ["larger than \(CADirectory.maximumFileSize) bytes", "no certificate", "no certificate",
                                                   "is a directory"])
    }

    @Test func unusableDirectories() throws {
        let empty = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: empty) }
        try "x".write(toFile: empty + "/x.pem", atomically: true, encoding: .utf8)
        for path in [empty, empty + "/missing", empty + "/x.pem"] {
            do {
                _ = try CADirectory.load(path: path)
                Issue.record("expected an error for \(path)")
            } catch {
                #expect(error.description.hasPrefix("cannot use CA directory '\(path)': "))
            }
        }
    }

    @Test(arguments: [("0123abcd.0", true), ("0123abcd.12", true), ("a.pem", true), ("A.CRT", true), ("x.cer", true),
                      ("0123abcd.r0", false), ("0123ABCD.0", false), ("0123abc.0", false), ("0123abcd.", false),
                      ("0123abcd.00000", false), (".x.pem", false), ("pem", false), ("x.pem.bak", false)])
    func candidates(_ name: String, _ expected: Bool) {
        #expect(CADirectory.isCandidate(name) == expected)
    }

    @Test func pemParsingIsLenient() throws {
        let pem = try String(contentsOfFile: try Self.pki().path("ca.pem"), encoding: .utf8)
        let body = pem.split(separator: "\n").dropFirst().dropLast().joined()
        // One long base64 line, CRLF line ends, text around, indentation.
        let odd = "Subject: CA\r\n  -----BEGIN CERTIFICATE-----\r\n\(body)\r\n-----END CERTIFICATE-----  \r\ntrailing text"
        #expect(TLSInputFile.certificates(in: Array(odd.utf8)) == [try Self.certificate("ca")])
        // Unterminated and corrupt blocks give nothing, without crashing.
        #expect(TLSInputFile.certificates(in: Array("-----BEGIN CERTIFICATE-----\n\(body)\n".utf8)).isEmpty)
        #expect(TLSInputFile.certificates(in: Array("-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----\n".utf8)).isEmpty)
        #expect(TLSInputFile.pemBlocks(Array(String(repeating: "-----BEGIN X-----\n-----END X-----\n", count: 20_000).utf8)).count
                == TLSInputFile.maximumBlocks)
    }
}
