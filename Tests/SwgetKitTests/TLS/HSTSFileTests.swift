import Foundation
import Testing
@testable import SwgetKit

@Suite("HSTS: wget's database file")
struct HSTSFileTests {
    typealias Entry = HSTSStore.Entry

    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "swget-hsts-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A file as wget 1.21 writes it (tabs), with a hand-edited line (spaces) and a blank line.
    static let wgetSample = """
        # HSTS 1.0 Known Hosts database for GNU Wget.
        # Edit at your own risk.
        # <hostname>\t<port>\t<incl. subdomains>\t<created>\t<max-age>
        github.com\t0\t1\t1700000000\t31536000
        www.kernel.org\t0\t0\t1699990000\t15768000

          example.org   8443   1   1690000000   100
        """

    @Test func readsWgetsOwnFormat() {
        let contents = HSTSFile.parse(Array(Self.wgetSample.utf8))
        #expect(contents.warnings.isEmpty)
        #expect(contents.entries == [
            Entry(host: "github.com", port: 0, includeSubDomains: true, created: 1_700_000_000, maxAge: 31_536_000),
            Entry(host: "www.kernel.org", port: 0, includeSubDomains: false, created: 1_699_990_000, maxAge: 15_768_000),
            Entry(host: "example.org", port: 8443, includeSubDomains: true, created: 1_690_000_000, maxAge: 100),
        ])
    }

    struct LineCase: CustomTestStringConvertible, Sendable {
        let line: String
        let reason: String?
        var testDescription: String { line.isEmpty ? "(empty)" : String(line.prefix(50)) }
    }

    static let lines: [LineCase] = [
        LineCase(line: "a.example 0 1 1 2", reason: nil),
        LineCase(line: "a.example\t0\t0\t1\t2\r", reason: nil),
        LineCase(line: "A.Example. 0 0 1 2", reason: nil),
        LineCase(line: "   # comment 1 2 3", reason: nil),
        LineCase(line: "", reason: nil),
        LineCase(line: " \t ", reason: nil),
        LineCase(line: "a.example 0 1 1", reason: "expected 5 fields, found 4"),
        LineCase(line: "a.example 0 1 1 2 3", reason: "expected 5 fields, found 6"),
        LineCase(line: "1.2.3.4 0 1 1 2", reason: "invalid host name"),
        LineCase(line: "[::1] 0 1 1 2", reason: "invalid host name"),
        LineCase(line: "bad_host!.example 0 1 1 2", reason: "invalid host name"),
        LineCase(line: "bücher.de 0 1 1 2", reason: "invalid host name"),
        LineCase(line: "a.example 65536 1 1 2", reason: "invalid port"),
        LineCase(line: "a.example -1 1 1 2", reason: "invalid port"),
        LineCase(line: "a.example 0 2 1 2", reason: "include-subdomains must be 0 or 1"),
        LineCase(line: "a.example 0 yes 1 2", reason: "include-subdomains must be 0 or 1"),
        LineCase(line: "a.example 0 1 -5 2", reason: "invalid creation time"),
        LineCase(line: "a.example 0 1 9999999999999999 2", reason: "invalid creation time"),
        LineCase(line: "a.example 0 1 1 0x10", reason: "invalid max-age"),
        LineCase(line: "a.example 0 1 1 99999999999999999999", reason: "invalid max-age"),
        LineCase(line: "a.example 0 1 1 2" + String(repeating: " ", count: 1100), reason: "line longer than 1024 bytes"),
    ]

    @Test(arguments: lines)
    func line(_ c: LineCase) {
        let contents = HSTSFile.parse(Array(("# first\n" + c.line + "\nz.example 0 0 1 2\n").utf8))
        #expect(contents.warnings == (c.reason.map { [HSTSFile.Warning(line: 2, reason: $0)] } ?? []))
        // The lines around a bad one are still read.
        #expect(contents.entries.last?.host == "z.example")
    }

    @Test func hugeMaxAgeIsClamped() {
        let contents = HSTSFile.parse(Array("a.example 0 1 1 999999999999\n".utf8))
        #expect(contents.entries.first?.maxAge == StrictTransportSecurity.maximumMaxAge)
    }

    @Test func warningsAreBounded() {
        let text = String(repeating: "garbage\n", count: 500) + "a.example 0 1 1 2\n"
        let contents = HSTSFile.parse(Array(text.utf8))
        #expect(contents.warnings.count == HSTSFile.maximumWarnings)
        #expect(contents.suppressedWarnings == 400)
        #expect(contents.entries.count == 1)
    }

    @Test func binaryGarbageDoesNotCrash() {
        var state: UInt64 = 0x5EED
        let bytes = (0..<100_000).map { _ -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let contents = HSTSFile.parse(bytes)
        #expect(contents.entries.allSatisfy { HSTSHostName.normalized($0.host) == $0.host })
        #expect(contents.warnings.count <= HSTSFile.maximumWarnings)
        #expect(HSTSFile.parse(Array(repeating: UInt8(ascii: "\n"), count: 100_000)) == HSTSFile.Contents())
    }

    @Test func roundTripThroughTheStore() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/sub/dir/hsts"
        let clock = Date(timeIntervalSince1970: 1_700_000_000)
        let store = HSTSStore(clock: { clock })
        store.learn(header: "max-age=31536000; includeSubDomains", host: "example.com", overTrustedTLS: true)
        store.learn(header: "max-age=60", host: "alt.example", port: 8443, overTrustedTLS: true)
        #expect(store.hasChanges)
        try store.save(to: path)
        #expect(!store.hasChanges)

        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("# HSTS 1.0 Known Hosts database"))
        #expect(text.contains("alt.example\t8443\t0\t1700000000\t60\n"))
        #expect(text.contains("example.com\t0\t1\t1700000000\t31536000\n"))
        // No temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/sub/dir") == ["hsts"])

        let reloaded = HSTSStore(clock: { clock })
        #expect(try reloaded.load(contentsOf: path).isEmpty)
        #expect(reloaded.entries() == store.entries())
        // Saving again replaces the file.
        reloaded.learn(header: "max-age=0", host: "alt.example", overTrustedTLS: true)
        try reloaded.save(to: path)
        #expect(try HSTSFile.read(path: path).entries.map(\.host) == ["example.com"])
    }

    @Test func aCorruptFileStillLoadsItsGoodLines() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/hsts"
        try "good.example 0 1 1700000000 100\nnot a valid line\n\u{0}\u{1}\u{2}\n".write(toFile: path, atomically: true, encoding: .utf8)
        let store = HSTSStore(clock: { Date(timeIntervalSince1970: 1_700_000_050) })
        let warnings = try store.load(contentsOf: path)
        #expect(warnings.map(\.line) == [2, 3])
        #expect(warnings.first?.description == "line 2: expected 5 fields, found 4")
        #expect(store.entries().map(\.host) == ["good.example"])
    }

    @Test func missingFileIsEmpty() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let contents = try HSTSFile.read(path: directory + "/nothing-here")
        #expect(contents == HSTSFile.Contents())
    }

    @Test func unsafeFilesAreRefused() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let open = directory + "/world-writable"
        try "a.example 0 1 1 2\n".write(toFile: open, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: open)
        let fifo = directory + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in [open, directory, fifo] {
            #expect(throws: HSTSFileError.self) { try HSTSFile.read(path: path) }
            do { _ = try HSTSFile.read(path: path) } catch { #expect(error.kind == .unsafe) }
        }
    }

    @Test func oversizedFilesAreRefused() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/big"
        try Data(count: HSTSFile.maximumFileSize + 1).write(to: URL(fileURLWithPath: path))
        do {
            _ = try HSTSFile.read(path: path)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .tooLarge)
            #expect(error.description.contains(path))
        }
    }

    @Test func writeFailuresAreReported() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "x".write(toFile: directory + "/file", atomically: true, encoding: .utf8)
        for path in [directory + "/file/hsts", "", directory + "/"] {
            do {
                try HSTSFile.write([], to: path)
                Issue.record("expected an error for \(path)")
            } catch {
                #expect(error.kind == .unwritable)
            }
        }
    }

    @Test func serializationIsSortedAndBounded() {
        let entries = (0..<5).reversed().map { Entry(host: "h\($0).example", includeSubDomains: false, created: 1, maxAge: Int64($0)) }
        let lines = HSTSFile.serialize(entries).split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines.map { $0.split(separator: "\t")[0] } == ["h0.example", "h1.example", "h2.example", "h3.example", "h4.example"])
    }
}
