import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A server that serves one connection at a time, as GNU wget's test server and small embedded
/// servers do: it accepts the next connection only once the current keep-alive connection is
/// closed. Every request gets `200` with `body` and `Content-Length`, keep-alive.
///
/// Blocking sockets on a thread of its own; `stop()` closes the listener and the connection.
public final class SerialTestServer: Sendable {
    public let port: Int
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    private let listener: Int32
    private let state = Mutex<(stopped: Bool, connections: Int, requests: Int, current: Int32)>((false, 0, 0, -1))

    /// Starts serving `body` for every request.
    public init(body: [UInt8]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // A backlog of 8: the kernel completes handshakes the server has not accepted yet, as a
        // busy single-connection server's kernel does.
        guard bound == 0, listen(fd, 8) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in self.serve(body) }
        thread.name = "serial-test-server"
        thread.start()
    }

    /// Connections accepted so far.
    public var connections: Int { state.withLock { $0.connections } }
    /// Requests answered so far.
    public var requests: Int { state.withLock { $0.requests } }

    public func stop() {
        let current = state.withLock { state -> Int32 in
            state.stopped = true
            return state.current
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        if current >= 0 { shutdown(current, Int32(SHUT_RDWR)) }
    }

    private func serve(_ body: [UInt8]) {
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        while !state.withLock({ $0.stopped }) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            state.withLock {
                $0.connections += 1
                $0.current = connection
            }
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                // One request: read up to the blank line (requests here have no body).
                if let end = Self.headEnd(pending) {
                    pending.removeFirst(end)
                    state.withLock { $0.requests += 1 }
                    let response = head + body
                    let sent = response.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if sent != response.count { break }
                    continue
                }
                let n = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                pending += buffer[0..<n]
            }
            close(connection)
            state.withLock { $0.current = -1 }
        }
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }
}
