import Foundation
import Testing
import SwgetKit
import SwgetTestSupport

@Suite("Connecting: addresses, timeouts, odd responses")
struct ConnectTests {
    @Test func localhostFallsBackAcrossAddressFamilies() async throws {
        // A listener on 127.0.0.1 only: "localhost" may resolve to ::1 first, which refuses.
        let (listener, port, _) = try Self.listener(backlog: 4)
        defer { close(listener) }
        // Serve one HTTP response from a NIO-free thread: accept, read, answer, close.
        let thread = Thread {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = read(client, &buffer, buffer.count)
            let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nv4".utf8)
            _ = write(client, answer, answer.count)
            close(client)
        }
        thread.start()
        let (data, _) = try await Session().data(for: request("http://localhost:\(port)/"))
        #expect(Array(data) == Array("v4".utf8))
    }

    @Test func connectTimeout() async throws {
        // A listener whose accept queue is full drops further SYNs: connecting hangs.
        var (listener, port, address) = try Self.listener(backlog: 0)
        defer { close(listener) }
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        var fillers: [Int32] = []
        defer { fillers.forEach { close($0) } }
        for _ in 0..<4 {
            let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, length) } }
            fillers.append(s)
        }
        try await Task.sleep(for: .milliseconds(100))
        var configuration = SessionConfiguration.default
        configuration.connectTimeout = .milliseconds(300)
        let started = ContinuousClock.now
        do throws(SessionError) {
            _ = try await Session(configuration: configuration).data(for: request("http://127.0.0.1:\(port)/"))
            Issue.record("expected a timeout")
        } catch {
            #expect(error == SessionError.timedOut)
            #expect(error.category == .network)
        }
        // Not the system's own SYN retries (over two minutes on Linux); the margin is for a
        // loaded machine, never for those retries to end.
        #expect(ContinuousClock.now - started < .seconds(100))
    }

    struct SocketError: Error {}

    /// A plain blocking listener on 127.0.0.1 and an ephemeral port (no NIO involved).
    static func listener(backlog: Int32) throws -> (fd: Int32, port: Int, address: sockaddr_in) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketError() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard bound == 0, named == 0, listen(fd, backlog) == 0 else { close(fd); throw SocketError() }
        return (fd, Int(UInt16(bigEndian: address.sin_port)), address)
    }

    @Test func informationalResponsesAreSkipped() async throws {
        try await withServer({ _ in .rawText("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") }) { server in
            let (data, response) = try await Session().data(for: request(server.baseURL + "/"))
            #expect(response.statusCode == 200)
            #expect(Array(data) == Array("ok".utf8))
        }
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
        "garbage that is not HTTP\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
    ])
    func malformedResponsesFailCleanly(_ raw: String) async throws {
        try await withServer({ _ in .rawText(raw) }) { server in
            do throws(SessionError) {
                _ = try await Session().data(for: request(server.baseURL + "/"))
                Issue.record("expected a failure for \(raw.debugDescription)")
            } catch {
                #expect(error.category == .protocol || error.category == .network, "\(error)")
            }
        }
    }
}
