import Foundation
import Testing
import SwgetTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Each real-server harness (Debian's Apache, tinyproxy, microsocks, vsftpd, nginx with WebDAV)
/// started, checked with curl, and stopped, so that a broken harness fails here, loudly, rather
/// than inside the end-to-end tests that build on it. Not serialized: the harnesses must coexist.
@Suite("Real-server harnesses")
struct RealServerSmokeTests {
    /// Files for a served root: `a.txt` ("hello") and `data.bin` (300 kB of random bytes).
    struct Root {
        let path: String
        let data: [UInt8]
        let keys: String
        let ca: String
        let certificate: String
        let key: String

        init() throws {
            path = try makeTemporaryDirectory(prefix: "swget-smoke-root")
            var generator = SystemRandomNumberGenerator()
            data = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try Data(data).write(to: URL(fileURLWithPath: path + "/data.bin"))
            try Data("hello".utf8).write(to: URL(fileURLWithPath: path + "/a.txt"))
            let pki = try TestCertificates.make()
            keys = try makeTemporaryDirectory(prefix: "swget-smoke-keys")
            (certificate, key) = try pki.serverIdentity().write(to: keys, name: "server")
            ca = try pki.writeCA(to: keys)
        }

        func remove() {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: keys)
        }
    }

    static func curl(_ arguments: [String], stdin: [UInt8]? = nil) async throws -> SwgetResult {
        let curl = try #require(SwgetProcess.findExecutable("curl"), "curl is needed (scripts/install-deps --test)")
        let directory = try makeTemporaryDirectory(prefix: "swget-smoke-curl")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await SwgetProcess.run(executable: curl, ["-sS", "--max-time", "20"] + arguments, in: directory,
                                          stdin: stdin, timeout: .seconds(30))
    }

    /// `-w '%{http_code}'` with the body thrown away.
    static func status(_ arguments: [String]) async throws -> String {
        try await curl(["-o", "/dev/null", "-w", "%{http_code}"] + arguments).stdoutText
    }

    /// After `stop()`: no process of the group runs and the temporary directory is gone.
    static func expectGone(group: pid_t, directory: String, _ name: String) {
        #expect(ForegroundServer.runningMembers(ofGroup: group).isEmpty, "\(name) left processes running")
        #expect(!FileManager.default.fileExists(atPath: directory), "\(name) left \(directory)")
    }

    static func seconds(since start: ContinuousClock.Instant) -> String {
        let (s, atto) = (ContinuousClock.now - start).components
        return String(format: "%.3f s", Double(s) + Double(atto) / 1e18)
    }

    @Test func apacheBasicAndDigest() async throws {
        let root = try Root()
        defer { root.remove() }
        let started = ContinuousClock.now
        let apache = try await Apache.start(root: root.path, users: ["alice": "secret", "bob": "pä ss"],
                                      tlsCertificatePath: root.certificate, tlsKeyPath: root.key)
        print("Apache started in \(Self.seconds(since: started))")
        defer { apache.stop() }
        let url = apache.httpURL
        #expect(try await Self.curl([url + "/a.txt"]).stdoutText == "hello")
        let challenge = try await Self.curl(["-D", "-", "-o", "/dev/null", url + "/basic/a.txt"]).stdoutText
        #expect(challenge.hasPrefix("HTTP/1.1 401"), "\(challenge)")
        #expect(challenge.contains("WWW-Authenticate: Basic realm=\"\(Apache.basicRealm)\""), "\(challenge)")
        #expect(try await Self.curl(["-u", "alice:secret", url + "/basic/a.txt"]).stdoutText == "hello")
        #expect(try await Self.curl(["-u", "bob:pä ss", url + "/basic/a.txt"]).stdoutText == "hello")
        #expect(try await Self.status(["-u", "alice:wrong", url + "/basic/a.txt"]) == "401")
        let digest = try await Self.curl(["-D", "-", "-o", "/dev/null", url + "/digest/a.txt"]).stdoutText
        #expect(digest.contains("WWW-Authenticate: Digest realm=\"\(Apache.digestRealm)\""), "\(digest)")
        #expect(digest.contains("algorithm=MD5") && digest.contains("qop=\"auth\""), "\(digest)")
        #expect(try await Self.curl(["--digest", "-u", "alice:secret", url + "/digest/a.txt"]).stdoutText == "hello")
        #expect(try await Self.curl(["--digest", "-u", "bob:pä ss", url + "/digest/data.bin"]).stdout == root.data)
        #expect(try await Self.status(["--digest", "-u", "alice:wrong", url + "/digest/a.txt"]) == "401")
        #expect(try await Self.status([url + "/redirect/basic/a.txt"]) == "302")
        let https = try #require(apache.httpsURL)
        #expect(try await Self.curl(["--cacert", root.ca, "-u", "alice:secret", https + "/basic/a.txt"]).stdoutText == "hello")
        let log = apache.accessLog()
        #expect(log.contains("GET /basic/a.txt 200 5 user=\"alice\" authorization=\"Basic YWxpY2U6c2VjcmV0\""), "\(log)")
        #expect(log.contains("GET /digest/a.txt 200 5 user=\"alice\" authorization=\"Digest username=\\\"alice\\\""), "\(log)")
        let (group, directory) = (apache.processGroup, apache.directory)
        apache.stop()
        Self.expectGone(group: group, directory: directory, "Apache")
    }

    @Test(arguments: [("MD5", true), ("no-such-algorithm", false)])
    func apacheDigestAlgorithmProbe(_ algorithm: String, _ expected: Bool) {
        #expect(Apache.supportsDigest(algorithm: algorithm) == expected)
    }

    @Test func apacheRefusesUnusableUsers() async throws {
        let root = try Root()
        defer { root.remove() }
        await #expect(throws: RealServerError.self) { try await Apache.start(root: root.path, users: ["a:b": "x"]) }
        await #expect(throws: RealServerError.self) { try await Apache.start(root: root.path, users: ["a": "x\ny"]) }
        await #expect(throws: RealServerError.self) { try await Apache.start(root: root.path, tlsCertificatePath: root.certificate) }
    }

    @Test(arguments: [false, true])
    func forwardProxyForwardsAndTunnels(withAuth: Bool) async throws {
        let root = try Root()
        defer { root.remove() }
        let origin = try await Nginx.start(root: root.path, tlsCertificatePath: root.certificate, tlsKeyPath: root.key)
        defer { origin.stop() }
        let started = ContinuousClock.now
        let proxy = try await withAuth ? ForwardProxy.start(user: "alice", password: "s3cret.x") : ForwardProxy.start()
        print("tinyproxy started in \(Self.seconds(since: started))")
        defer { proxy.stop() }
        let via = proxy.urlWithCredentials ?? proxy.url
        let https = try #require(origin.httpsURL)
        #expect(try await Self.curl(["-x", via, origin.httpURL + "/data.bin"]).stdout == root.data)
        #expect(try await Self.curl(["-x", via, "--cacert", root.ca, https + "/data.bin"]).stdout == root.data)
        if withAuth {
            #expect(try await Self.status(["-x", proxy.url, origin.httpURL + "/a.txt"]) == "407")
            let refused = try await Self.curl(["-x", proxy.url, "--cacert", root.ca, https + "/a.txt"])
            #expect(refused.status == 56 && refused.stderr.contains("407"), "\(refused.stderr)")
        }
        let lines = proxy.requestLines()
        #expect(lines.contains("GET \(origin.httpURL)/data.bin HTTP/1.1"), "\(lines)")
        #expect(lines.contains("CONNECT localhost:\(https.split(separator: ":").last ?? "") HTTP/1.1"), "\(lines)")
        let (group, directory) = (proxy.processGroup, proxy.directory)
        proxy.stop()
        Self.expectGone(group: group, directory: directory, "tinyproxy")
    }

    @Test(arguments: [false, true])
    func socksServerTunnels(withAuth: Bool) async throws {
        let root = try Root()
        defer { root.remove() }
        let origin = try await Nginx.start(root: root.path)
        defer { origin.stop() }
        let started = ContinuousClock.now
        let socks = try await withAuth ? SocksServer.start(user: "alice", password: "pä ss:word") : SocksServer.start()
        print("microsocks started in \(Self.seconds(since: started))")
        defer { socks.stop() }
        let credentials = withAuth ? "alice:p%C3%A4%20ss%3Aword@" : ""
        let target = "http://localhost:\(origin.httpPort)/data.bin"
        #expect(try await Self.curl(["-x", "socks5h://\(credentials)127.0.0.1:\(socks.port)", target]).stdout == root.data)
        #expect(try await Self.curl(["-x", "socks5://\(credentials)127.0.0.1:\(socks.port)", target]).stdout == root.data)
        if withAuth {
            let refused = try await Self.curl(["-x", "socks5h://alice:wrong@127.0.0.1:\(socks.port)", target])
            #expect(refused.status == 97, "\(refused.stderr)")
            #expect(try await Self.curl(["-x", socks.hostnameURL, target]).status == 97)
        }
        let connections = socks.connections()
        #expect(connections.contains("localhost:\(origin.httpPort)"), "\(connections)")
        #expect(connections.contains("127.0.0.1:\(origin.httpPort)"), "\(connections)")
        let (group, directory) = (socks.processGroup, socks.directory)
        socks.stop()
        Self.expectGone(group: group, directory: directory, "microsocks")
    }

    @Test(.enabled(if: geteuid() == 0, "vsftpd needs root"))
    func ftpServerAnonymousUsersPassiveActiveAndTLS() async throws {
        let root = try Root()
        defer { root.remove() }
        let started = ContinuousClock.now
        let ftp = try await FTPServer.start(root: root.path, users: ["alice": "se cret"],
                                      tlsCertificatePath: root.certificate, tlsKeyPath: root.key)
        print("vsftpd started in \(Self.seconds(since: started))")
        defer { ftp.stop() }
        #expect(try await Self.curl([ftp.url + "/data.bin"]).stdout == root.data)
        #expect(try await Self.curl(["--ftp-pasv", "--disable-epsv", ftp.url + "/data.bin"]).stdout == root.data)
        #expect(try await Self.curl(["-P", "-", ftp.url + "/data.bin"]).stdout == root.data)
        #expect(try await Self.curl(["-P", "-", "--disable-eprt", ftp.url + "/a.txt"]).stdoutText == "hello")
        #expect(try await Self.curl(["-u", "alice:se cret", ftp.url + "/data.bin"]).stdout == root.data)
        #expect(try await Self.curl(["-C", "1000", "-u", "alice:se cret", ftp.url + "/data.bin"]).stdout == Array(root.data[1000...]))
        #expect(try await Self.curl(["-u", "alice:wrong", ftp.url + "/a.txt"]).status == 67)
        #expect(try await Self.curl(["-u", "mallory:se cret", ftp.url + "/a.txt"]).status == 67)
        let listing = try await Self.curl([ftp.url + "/"]).stdoutText
        #expect(listing.contains("data.bin") && listing.contains("a.txt"), "\(listing)")
        // Explicit FTPS, passive (curl 7.88's active-mode FTPS is broken: curl issue 10666).
        #expect(try await Self.curl(["--ssl-reqd", "--cacert", root.ca, ftp.url + "/data.bin"]).stdout == root.data)
        #expect(try await Self.curl(["--ssl-reqd", "--cacert", root.ca, "-u", "alice:se cret", ftp.url + "/a.txt"]).stdoutText == "hello")
        let commands = ftp.commands()
        for command in ["EPSV", "PASV", "REST 1000", "USER alice", "AUTH SSL", "PROT P"] {
            #expect(commands.contains(command), "\(command) not in \(commands)")
        }
        #expect(commands.contains { $0.hasPrefix("EPRT |1|127.0.0.1|") } && commands.contains { $0.hasPrefix("PORT 127,0,0,1,") },
                "\(commands)")
        #expect(!ftp.log().contains("OOPS"), "\(ftp.log())")
        let (group, directory) = (ftp.processGroup, ftp.directory)
        let service = try #require(ftp.pamService)
        #expect(FileManager.default.fileExists(atPath: "/etc/pam.d/" + service))
        ftp.stop()
        Self.expectGone(group: group, directory: directory, "vsftpd")
        #expect(!FileManager.default.fileExists(atPath: "/etc/pam.d/" + service))
    }

    @Test(.enabled(if: geteuid() == 0, "vsftpd needs root"))
    func ftpServerImplicitTLSOnly() async throws {
        let root = try Root()
        defer { root.remove() }
        let ftp = try await FTPServer.start(root: root.path, tlsCertificatePath: root.certificate, tlsKeyPath: root.key,
                                      implicitTLS: true)
        defer { ftp.stop() }
        #expect(ftp.url.hasPrefix("ftps://"))
        #expect(try await Self.curl(["--cacert", root.ca, ftp.url + "/data.bin"]).stdout == root.data)
        #expect(try await Self.curl([ftp.url + "/a.txt"]).status == 60)  // TLS from the first byte: the certificate is checked
    }

    @Test func nginxWebDAVTakesPuts() async throws {
        let root = try Root()
        defer { root.remove() }
        let uploads = try makeTemporaryDirectory(prefix: "swget-smoke-dav")
        defer { try? FileManager.default.removeItem(atPath: uploads) }
        let started = ContinuousClock.now
        let dav = try await NginxWebDAV.start(root: uploads)
        print("nginx (WebDAV) started in \(Self.seconds(since: started))")
        defer { dav.stop() }
        let url = dav.httpURL + "/deep/er/data.bin"
        #expect(try await Self.status(["-T", root.path + "/data.bin", url]) == "201")
        #expect(FileManager.default.contents(atPath: uploads + "/deep/er/data.bin").map { [UInt8]($0) } == root.data)
        #expect(try await Self.status(["-T", root.path + "/a.txt", dav.httpURL + "/replaced.txt"]) == "201")
        #expect(try await Self.status(["-T", root.path + "/data.bin", dav.httpURL + "/replaced.txt"]) == "204")
        #expect(FileManager.default.contents(atPath: uploads + "/replaced.txt").map { [UInt8]($0) } == root.data)
        let chunked = try await Self.curl(["-o", "/dev/null", "-w", "%{http_code}", "-T", "-", dav.httpURL + "/piped.bin"],
                                          stdin: root.data)
        #expect(chunked.stdoutText == "201", "\(chunked.stderr)")
        #expect(FileManager.default.contents(atPath: uploads + "/piped.bin").map { [UInt8]($0) } == root.data)
        #expect(try await Self.curl([url]).stdout == root.data)
        let log = dav.accessLog()
        #expect(log.contains("PUT /deep/er/data.bin 201") && log.contains("content_length=\"300000\""), "\(log)")
        #expect(log.contains("PUT /piped.bin 201") && log.contains("transfer_encoding=\"chunked\""), "\(log)")
        let (group, directory) = (dav.processGroup, dav.directory)
        dav.stop()
        Self.expectGone(group: group, directory: directory, "nginx (WebDAV)")
    }
}
