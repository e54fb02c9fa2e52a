import Foundation
import Testing
import SwgetTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// HSTS end to end, with the in-process HTTPS server and a test CA given by `--ca-certificate`.
///
/// The upgrade keeps an explicit port other than 80 (RFC 6797 §8.3), so `http://localhost:PORT`
/// becomes `https://localhost:PORT`: the tests send `http://` URLs to the HTTPS server's own port.
/// Upgraded, the request is served; not upgraded, it reaches a TLS server in plain text and the
/// run fails without the server seeing a request.
@Suite("HSTS, end to end")
struct HSTSCommandTests {
    static func server(_ pki: TestCertificates) async throws -> TestServer {
        try await TestServer.start(tls: try pki.serverIdentity()) { request in
            switch request.path {
            case "/sts": TestResponse.text("policy").withHeader("Strict-Transport-Security", request.query?.removingPercentEncoding ?? "max-age=3600")
            default: .text("served \(request.path)")
            }
        }
    }

    struct Setup {
        let pki: TestCertificates
        let dir: String
        let ca: String
        var database: String { dir + "/hsts" }

        init() throws {
            pki = try TestCertificates.make()
            dir = try makeTemporaryDirectory()
            ca = try pki.writeCA(to: dir)
        }

        func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> SwgetResult {
            try await SwgetProcess.run(["-O", "-", "--ca-certificate", ca] + arguments, in: dir, environment: environment)
        }

        func remove() { try? FileManager.default.removeItem(atPath: dir) }
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    /// The database's entries as "host port includeSubDomains max-age".
    static func entries(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
            .filter { !$0.hasPrefix("#") }
            .map { line in
                let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
                return fields.count == 5 ? "\(fields[0]) \(fields[1]) \(fields[2]) \(fields[4])" : "bad: \(line)"
            }
    }

    @Test func learnedInOneRunUpgradesTheNext() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let server = try await Self.server(setup.pki)
        defer { Task { try? await server.stop() } }

        let learn = try await setup.run(["--hsts-file", setup.database, server.baseURL + "/sts?max-age%3D600"])
        #expect(learn.status == 0, "\(learn.stderr)")
        #expect(Self.entries(setup.database) == ["localhost \(server.port) 0 600"])
        #expect(Self.mode(setup.database) == 0o600)

        let upgraded = try await setup.run(["--hsts-file", setup.database, "http://localhost:\(server.port)/after"])
        #expect(upgraded.status == 0, "\(upgraded.stderr)")
        #expect(upgraded.stdoutText == "served /after")
        #expect(server.requests.map(\.path) == ["/sts", "/after"])

        // --no-hsts: the same URL goes out in plain text to the TLS port and fails.
        let ignored = try await setup.run(["--no-hsts", "-t", "1", "http://localhost:\(server.port)/plain"])
        #expect(ignored.status != 0)
        #expect(server.requests.map(\.path) == ["/sts", "/after"])
        // And it neither reads nor changes the database.
        #expect(Self.entries(setup.database) == ["localhost \(server.port) 0 600"])
    }

    /// Without --hsts-file the database is `$XDG_DATA_HOME/swget/hsts`, else
    /// `~/.local/share/swget/hsts`, created with its directories, mode 0600.
    @Test(arguments: [false, true])
    func theDefaultDatabase(xdg: Bool) async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let server = try await Self.server(setup.pki)
        defer { Task { try? await server.stop() } }
        let home = try makeTemporaryDirectory(prefix: "swget-home")
        defer { try? FileManager.default.removeItem(atPath: home) }
        var environment = ["HOME": home]
        if xdg { environment["XDG_DATA_HOME"] = home + "/xdg" }
        let path = xdg ? home + "/xdg/swget/hsts" : home + "/.local/share/swget/hsts"

        let learn = try await setup.run([server.baseURL + "/sts?max-age%3D600%3B%20includeSubDomains"], environment: environment)
        #expect(learn.status == 0, "\(learn.stderr)")
        #expect(Self.entries(path) == ["localhost \(server.port) 1 600"])
        #expect(Self.mode(path) == 0o600)
        let upgraded = try await setup.run(["http://localhost:\(server.port)/after"], environment: environment)
        #expect(upgraded.status == 0, "\(upgraded.stderr)")
        #expect(upgraded.stdoutText == "served /after")
    }

    @Test func maxAgeZeroRemovesTheEntryFromTheDatabase() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let server = try await Self.server(setup.pki)
        defer { Task { try? await server.stop() } }
        let now = Int(Date().timeIntervalSince1970)
        try "example.org\t0\t1\t\(now)\t3600\nlocalhost\t0\t0\t\(now)\t3600\n".write(toFile: setup.database, atomically: true, encoding: .utf8)
        let result = try await setup.run(["--hsts-file", setup.database, server.baseURL + "/sts?max-age%3D0"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.entries(setup.database) == ["example.org 0 1 3600"])
    }

    /// A corrupt line is skipped with a warning naming the file and line; the good lines work.
    @Test func aCorruptLineIsSkippedWithAWarning() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let server = try await Self.server(setup.pki)
        defer { Task { try? await server.stop() } }
        let now = Int(Date().timeIntervalSince1970)
        try """
            # HSTS 1.0 Known Hosts database for GNU Wget.
            this is not an entry
            localhost\t0\t0\t\(now)\t3600

            """.write(toFile: setup.database, atomically: true, encoding: .utf8)
        chmod(setup.database, 0o600)
        let result = try await setup.run(["--hsts-file", setup.database, "http://localhost:\(server.port)/x"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("\(setup.database):2: "), "\(result.stderr)")
        #expect(result.stderr.contains("line skipped"), "\(result.stderr)")
        #expect(result.stdoutText == "served /x")
    }

    /// Never learned from an IP address or with `--no-check-certificate` (RFC 6797 §8.1): no
    /// database is written.
    @Test(arguments: ["ip", "insecure"])
    func notLearned(_ how: String) async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let server = try await Self.server(setup.pki)
        defer { Task { try? await server.stop() } }
        let url = how == "ip" ? "https://127.0.0.1:\(server.port)/sts" : server.baseURL + "/sts"
        let result = try await setup.run(["--hsts-file", setup.database] + (how == "insecure" ? ["--no-check-certificate"] : []) + [url])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requests.count == 1)
        #expect(!FileManager.default.fileExists(atPath: setup.database))
    }
}
