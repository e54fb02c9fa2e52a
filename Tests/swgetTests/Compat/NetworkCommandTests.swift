import Foundation
import Testing
import SwgetTestSupport

/// `-4`, `-6` and `--bind-address` with the binary, against a server that listens on
/// 127.0.0.1 only: `localhost` is reachable over IPv4 and refused over IPv6.
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
}
