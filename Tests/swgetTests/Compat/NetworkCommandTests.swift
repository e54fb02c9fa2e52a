import Foundation
import Testing
import SwgetTestSupport

/// `-4`, `-6`, `--bind-address` and `--dns-timeout` with the binary, against servers (HTTP and
/// FTP) that listen on 127.0.0.1 only: `localhost` is reachable over IPv4 and refused over IPv6.
@Suite("swget address families and local addresses, end to end")
struct NetworkCommandTests {
    @Test func familiesChooseTheAddressesOfAName() async throws {
        let server = try await TestServer.start { _ in .text("v4") }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = "http://localhost:\(server.port)/f"
        let v4 = try await SwgetProcess.run(["-q", "-4", "-O", "-", url], in: dir)
        #expect(v4.status == 0 && v4.stdoutText == "v4", "\(v4.stderr)")
        let v6 = try await SwgetProcess.run(["-q", "-t", "1", "-6", "-O", "-", url], in: dir)
        #expect(v6.status == 4, "\(v6.stderr)")
        #expect(server.requests.count == 1)
        let both = try await SwgetProcess.run(["-4", "-6", url], in: dir)
        #expect(both.status == 2, "\(both.stderr)")
    }

    @Test func bindAddress() async throws {
        let server = try await TestServer.start { _ in .text("bound") }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bound = try await SwgetProcess.run(["-q", "--bind-address", "127.0.0.1", "-O", "-", server.baseURL + "/f"], in: dir)
        #expect(bound.status == 0 && bound.stdoutText == "bound", "\(bound.stderr)")
        // An address of no local interface cannot be bound: a network error, no request.
        let foreign = try await SwgetProcess.run(["-q", "-t", "1", "--bind-address", "192.0.2.1", server.baseURL + "/g"], in: dir)
        #expect(foreign.status == 4, "\(foreign.stderr)")
        let name = try await SwgetProcess.run(["--bind-address", "eth0", server.baseURL + "/h"], in: dir)
        #expect(name.status == 2, "\(name.stderr)")
        #expect(server.requests.map(\.path) == ["/f"])
    }

    /// FTP's control connection resolves and binds as HTTP does, and its data connections
    /// leave from the bound address too.
    @Test func ftpObeysFamiliesAndTheBoundAddress() async throws {
        let server = try await FTPTestServer.start(FTPTestServerOptions(files: ["/f.txt": FTPTestFile(Array("ftp".utf8))]))
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = "ftp://localhost:\(server.port)/f.txt"
        let v6 = try await SwgetProcess.run(["-q", "-t", "1", "-6", "-O", "-", url], in: dir)
        #expect(v6.status == 4, "\(v6.stderr)")
        #expect(server.sessionCount == 0)
        let v4 = try await SwgetProcess.run(["-q", "-4", "-O", "-", url], in: dir)
        #expect(v4.status == 0 && v4.stdoutText == "ftp", "\(v4.stderr)")
        // Any 127.x address is local on Linux: the server sees where each connection came from.
        let before = server.peerAddresses.count
        let bound = try await SwgetProcess.run(["-q", "--bind-address", "127.0.0.2", "-O", "-", server.url("/f.txt")], in: dir)
        #expect(bound.status == 0 && bound.stdoutText == "ftp", "\(bound.stderr)")
        let peers = Array(server.peerAddresses.dropFirst(before))
        #expect(peers.count >= 2 && peers.allSatisfy { $0 == "127.0.0.2" }, "control and data connections: \(peers)")
        let foreign = try await SwgetProcess.run(["-q", "-t", "1", "--bind-address", "192.0.2.1", server.url("/f.txt")], in: dir)
        #expect(foreign.status == 4, "\(foreign.stderr)")
    }

    @Test func dnsTimeout() async throws {
        let server = try await TestServer.start { _ in .text("named") }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let named = try await SwgetProcess.run(["-q", "--dns-timeout", "30", "-O", "-", "http://localhost:\(server.port)/f"], in: dir)
        #expect(named.status == 0 && named.stdoutText == "named", "\(named.stderr)")
        // An address is not looked up: nothing to time out, nothing left waiting.
        let address = try await SwgetProcess.run(["-q", "--dns-timeout", "30", "-O", "-", server.baseURL + "/a"], in: dir)
        #expect(address.status == 0 && address.stdoutText == "named", "\(address.stderr)")
        for bad in ["0", "-1", "soon"] {
            let result = try await SwgetProcess.run(["--dns-timeout=\(bad)", "http://localhost:\(server.port)/g"], in: dir)
            #expect(result.status == 2, "\(bad): \(result.stderr)")
        }
        #expect(server.requests.map(\.path) == ["/f", "/a"])
    }
}
