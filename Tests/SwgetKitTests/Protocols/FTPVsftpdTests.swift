import Foundation
import Testing
import SwgetKit
import SwgetTestSupport

/// The FTP handler against a real server (Debian's vsftpd): anonymous and user logins, passive
/// and active data connections, explicit and implicit FTPS, resume, byte for byte.
@Suite("FTP handler against vsftpd", .serialized, .enabled(if: geteuid() == 0, "vsftpd needs root"))
struct FTPVsftpdTests {
    /// A served directory with a 2 MB file, a small one and a subdirectory, and a CA with a
    /// server certificate for 127.0.0.1.
    final class Fixture: Sendable {
        let root: String
        let keys: String
        let data: [UInt8]
        let ca: String
        let server: FTPServer

        init(tls: Bool = true, implicitTLS: Bool = false, requireTLS: Bool = false) async throws {
            root = try makeTemporaryDirectory(prefix: "swget-ftp-root")
            keys = try makeTemporaryDirectory(prefix: "swget-ftp-keys")
            data = randomBytes(2_000_000, seed: 11)
            try Data(data).write(to: URL(filePath: root + "/data.bin"))
            try Data("hello".utf8).write(to: URL(filePath: root + "/a.txt"))
            try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
            try Data("deep".utf8).write(to: URL(filePath: root + "/sub/deep.txt"))
            let pki = try TestCertificates.make()
            let (certificate, key) = try pki.serverIdentity().write(to: keys, name: "server")
            ca = try pki.writeCA(to: keys)
            server = try await FTPServer.start(root: root, users: ["alice": "se cret"],
                                         tlsCertificatePath: tls ? certificate : nil, tlsKeyPath: tls ? key : nil,
                                         implicitTLS: implicitTLS, requireTLS: requireTLS)
        }

        func session(_ ftp: (inout FTPSettings) -> Void = { _ in }) -> Session {
            var configuration = SessionConfiguration.ephemeral
            configuration.tls.additionalTrustRootFiles = [ca]
            configuration.retryPolicy.maxAttempts = 1
            ftp(&configuration.ftp)
            return Session(configuration: configuration)
        }

        func stop() {
            server.stop()
            try? FileManager.default.removeItem(atPath: root)
            try? FileManager.default.removeItem(atPath: keys)
        }
    }

    static func download(_ session: Session, _ url: String) async throws -> [UInt8]? {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (path, _) = try await session.download(request(url), to: .directory(dir))
        return contents(path)
    }

    @Test func anonymousAndUserLogins() async throws {
        let fixture = try await Fixture(tls: false)
        defer { fixture.stop() }
        let url = fixture.server.url
        #expect(try await Self.download(fixture.session(), url + "/data.bin") == fixture.data)
        #expect(try await Self.download(fixture.session(), "ftp://alice:se%20cret@127.0.0.1:\(fixture.server.port)/data.bin") == fixture.data)
        #expect(try await Self.download(fixture.session { $0.user = "alice"; $0.password = "se cret" }, url + "/sub/deep.txt")
                == Array("deep".utf8))
        let refused = try #require(await fixture.session().downloadTask(with: request("ftp://alice:wrong@127.0.0.1:\(fixture.server.port)/a.txt"),
                                                                        destination: .directory(makeTemporaryDirectory())).outcome())
        #expect(refused.category == .authentication)
        let missing = try #require(await fixture.session().downloadTask(with: request(url + "/nothing"),
                                                                        destination: .directory(makeTemporaryDirectory())).outcome())
        #expect(missing == SessionError.ftpStatus)
        let commands = fixture.server.commands()
        #expect(commands.contains("USER anonymous") && commands.contains("USER alice"))
    }

    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func passiveAndActive(passive: Bool, extended: Bool) async throws {
        let fixture = try await Fixture(tls: false)
        defer { fixture.stop() }
        let session = fixture.session {
            $0.passive = passive
            $0.usesExtendedPassive = extended
        }
        #expect(try await Self.download(session, fixture.server.url + "/data.bin") == fixture.data)
        let commands = fixture.server.commands()
        let expected = passive ? (extended ? "EPSV" : "PASV") : (extended ? "EPRT |1|127.0.0.1|" : "PORT 127,0,0,1,")
        #expect(commands.contains { $0.hasPrefix(expected) }, "\(commands)")
    }

    @Test func resumesWithRESTAndReusesTheLogin() async throws {
        let fixture = try await Fixture(tls: false)
        defer { fixture.stop() }
        let dir = try makeTemporaryDirectory()
        let session = fixture.session()
        // A part with the first 700,000 bytes, continued (-c) from there.
        try Data(fixture.data.prefix(700_000)).write(to: URL(filePath: dir + "/data.bin"))
        var destination = DownloadDestination.file(dir + "/data.bin")
        destination.continuePartial = true
        let (_, response) = try await session.download(request(fixture.server.url + "/data.bin"), to: destination)
        #expect(response.statusCode == 206)
        #expect(contents(dir + "/data.bin") == fixture.data)
        #expect(try await Self.download(session, fixture.server.url + "/a.txt") == Array("hello".utf8))
        let commands = fixture.server.commands()
        #expect(commands.contains("REST 700000"))
        #expect(commands.filter { $0.hasPrefix("USER") }.count == 1, "\(commands)")
    }

    @Test func listsAndProbes() async throws {
        let fixture = try await Fixture(tls: false)
        defer { fixture.stop() }
        let session = fixture.session()
        let entries = try await session.listFTPDirectory(try #require(URL(string: fixture.server.url + "/")))
        #expect(entries.map(\.name).sorted() == ["a.txt", "data.bin", "sub"])
        #expect(entries.first { $0.name == "data.bin" }?.size == 2_000_000)
        var head = request(fixture.server.url + "/data.bin")
        head.method = "HEAD"
        let (_, response) = try await session.data(for: head)
        #expect(response.headers["Content-Length"] == "2000000")
        let globbed = try await session.expandFTPGlob(request(fixture.server.url + "/*.txt"))
        #expect(globbed.map(\.url.lastPathComponent) == ["a.txt"])
    }

    @Test(arguments: [true, false])
    func explicitTLS(passive: Bool) async throws {
        let fixture = try await Fixture(requireTLS: true)
        defer { fixture.stop() }
        let secure = fixture.session {
            $0.security = .requireTLS
            $0.passive = passive
        }
        #expect(try await Self.download(secure, fixture.server.url + "/data.bin") == fixture.data)
        #expect(try await Self.download(secure, "ftp://alice:se%20cret@127.0.0.1:\(fixture.server.port)/a.txt") == Array("hello".utf8))
        let commands = fixture.server.commands()
        #expect(commands.contains("AUTH TLS") && commands.contains("PBSZ 0") && commands.contains("PROT P"), "\(commands)")
        // The same server without TLS: vsftpd refuses the plain login (530).
        let plain = try #require(await fixture.session().downloadTask(with: request(fixture.server.url + "/a.txt"),
                                                                      destination: .directory(makeTemporaryDirectory())).outcome())
        #expect(plain.category == .authentication)
    }

    @Test func explicitTLSIsVerifiedLikeHTTPS() async throws {
        let fixture = try await Fixture()
        defer { fixture.stop() }
        var configuration = SessionConfiguration.ephemeral
        configuration.ftp.security = .requireTLS
        let untrusted = try #require(await Session(configuration: configuration)
            .downloadTask(with: request(fixture.server.url + "/a.txt"), destination: .directory(makeTemporaryDirectory())).outcome())
        #expect(untrusted.category == .tls)
        let delegate = RecordingDelegate(trust: .accept)
        let (body, _) = try await Session(configuration: configuration, delegate: delegate).data(for: request(fixture.server.url + "/a.txt"))
        #expect(Array(body) == Array("hello".utf8))
        #expect(delegate.log.contains("challenge 127.0.0.1 untrusted"))
    }

    @Test func implicitTLS() async throws {
        let fixture = try await Fixture(implicitTLS: true)
        defer { fixture.stop() }
        #expect(fixture.server.url.hasPrefix("ftps://"))
        #expect(try await Self.download(fixture.session(), fixture.server.url + "/data.bin") == fixture.data)
        #expect(try await Self.download(fixture.session { $0.passive = false }, fixture.server.url + "/a.txt") == Array("hello".utf8))
    }
}
