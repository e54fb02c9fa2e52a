#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// The control machine driven against ``FTPTestServer`` by a minimal blocking-socket driver:
/// the machine's actions performed literally (connect, listen, write, read to EOF), so the
/// dialogue is checked against a server and not only against tables. The NIO driver does the
/// same asynchronously.
@Suite("FTP control machine against the test server")
struct FTPMachineDriverTests {
    static let payload = randomBytes(150_000, seed: 21)
    static let files: [String: FTPTestFile] = [
        "/pub/file.bin": FTPTestFile(payload, modified: "20200101120000"),
        "/pub/small.txt": FTPTestFile(Array("small\n".utf8), modified: "20210203040506"),
        "/pub/sub/deep.txt": FTPTestFile(Array("deep\n".utf8)),
    ]

    static func withDriver(_ configure: (inout FTPTestServerOptions) -> Void = { _ in },
                           machine: FTPControlMachine.Configuration = .init(),
                           _ body: (BlockingFTPDriver, FTPTestServer) throws -> Void) async throws {
        var options = FTPTestServerOptions(files: files)
        configure(&options)
        let server = try await FTPTestServer.start(options)
        var failure: (any Error)?
        do {
            let driver = try BlockingFTPDriver(port: server.port, configuration: machine)
            defer { driver.close() }
            #expect(try driver.run(nil) == .ready)
            try body(driver, server)
        } catch {
            failure = error
        }
        try await server.stop()
        if let failure { throw failure }
    }

    static let modified = FTPTimestamp(timeVal: "20200101120000")

    @Test func retrievesAndReusesTheConnection() async throws {
        try await Self.withDriver { driver, server in
            var info: FTPControlMachine.FileInfo?
            let result = try driver.run(.startJob(.retrieve(try FTPPath(urlPath: "/pub/file.bin")))) { info = $0; return 0 }
            #expect(result == .jobFinished(.retrieved(offset: 0, bytes: 150_000)))
            #expect(driver.data == Self.payload)
            #expect(info == FTPControlMachine.FileInfo(size: 150_000, modified: Self.modified))
            let second = try driver.run(.startJob(.retrieve(try FTPPath(urlPath: "/pub/small.txt")))) { _ in 0 }
            #expect(second == .jobFinished(.retrieved(offset: 0, bytes: 6)))
            #expect(driver.data == Array("small\n".utf8))
            #expect(try driver.run(.quit) == .close)
            #expect(server.sessionCount == 1)
        }
    }

    @Test func resumesWithREST() async throws {
        try await Self.withDriver { driver, server in
            let result = try driver.run(.startJob(.retrieve(try FTPPath(urlPath: "/pub/file.bin")))) { info in
                FTPResumeCheck.decide(.init(bytesOnDisk: 100_000, size: 150_000, modified: "20200101120000"), current: info) == .resume(offset: 100_000)
                    ? 100_000 : 0
            }
            #expect(result == .jobFinished(.retrieved(offset: 100_000, bytes: 50_000)))
            #expect(driver.data == Array(Self.payload[100_000...]))
            #expect(server.commands.contains { $0.verb == "REST" && $0.argument == "100000" })
        }
    }

    @Test func restartsWhenRESTIsRefused() async throws {
        try await Self.withDriver({ $0.refusals["REST"] = "502 REST not implemented." }) { driver, _ in
            let result = try driver.run(.startJob(.retrieve(try FTPPath(urlPath: "/pub/file.bin")))) { _ in 100_000 }
            #expect(result == .jobFinished(.retrieved(offset: 0, bytes: 150_000)))
            #expect(driver.data == Self.payload)
        }
    }

    @Test func fallsBackToPASVAndIgnoresAForeignAddress() async throws {
        try await Self.withDriver({
            $0.refusals["EPSV"] = "500 Unknown command."
            $0.passiveAddress = "10.255.255.1"
        }) { driver, server in
            let result = try driver.run(.startJob(.retrieve(try FTPPath(urlPath: "/pub/small.txt")))) { _ in 0 }
            #expect(result == .jobFinished(.retrieved(offset: 0, bytes: 6)))
            #expect(server.commands.map(\.verb).contains("PASV"))
        }
    }

    @Test(arguments: [false, true])
    func activeMode(refusingEPRT: Bool) async throws {
        var machine = FTPControlMachine.Configuration()
        machine.dataMode = .active
        try await Self.withDriver({ if refusingEPRT { $0.refusals["EPRT"] = "500 Unknown command." } }, machine: machine) { driver, server in
            let result = try driver.run(.startJob(.retrieve(try FTPPath(urlPath: "/pub/file.bin")))) { _ in 0 }
            #expect(result == .jobFinished(.retrieved(offset: 0, bytes: 150_000)))
            #expect(driver.data == Self.payload)
            #expect(server.commands.map(\.verb).contains(refusingEPRT ? "PORT" : "EPRT"))
        }
    }

    @Test(arguments: [false, true])
    func lists(refusingMLSD: Bool) async throws {
        try await Self.withDriver({ if refusingMLSD { $0.refusals["MLSD"] = "500 Unknown command." } }) { driver, _ in
            let result = try driver.run(.startJob(.list(try FTPPath(urlPath: "/pub/")))) { _ in 0 }
            let format: FTPListingFormat = refusingMLSD ? .list : .mlsd
            #expect(result == .jobFinished(.listed(format)))
            let now = try #require(FTPTimestamp(timeVal: "20240601000000"))
            let entries = try FTPListing.parse(driver.data, format: format, now: now)
            #expect(entries.map(\.name) == ["file.bin", "small.txt", "sub"])
            #expect(entries.first?.size == 150_000)
            #expect(entries.last?.kind == .directory)
        }
    }

    @Test func probes() async throws {
        try await Self.withDriver { driver, _ in
            let found = try driver.run(.startJob(.probe(try FTPPath(urlPath: "/pub/file.bin"))))
            #expect(found == .jobFinished(.probed(.init(size: 150_000, modified: Self.modified, kind: .file))))
            let missing = try driver.run(.startJob(.probe(try FTPPath(urlPath: "/pub/nothing"))))
            #expect(FTPScript.normalized(missing) == FTPScript.jobFailed(.notFound))
            let directory = try driver.run(.startJob(.probe(try FTPPath(urlPath: "/pub/sub/"))))
            #expect(directory == .jobFinished(.probed(.init(kind: .directory))))
        }
        try await Self.withDriver({ $0.refusals["MLST"] = "500 Unknown command." }) { driver, _ in
            let found = try driver.run(.startJob(.probe(try FTPPath(urlPath: "/pub/small.txt"))))
            #expect(found == .jobFinished(.probed(.init(size: 6, kind: .file))))
        }
    }

    @Test func faults() async throws {
        try await Self.withDriver({ $0.dataFaults = [.drop(afterBytes: 1000)]; $0.denied = ["/pub/small.txt"] }) { driver, _ in
            let dropped = try driver.run(.startJob(.retrieve(try FTPPath(urlPath: "/pub/file.bin")))) { _ in 0 }
            #expect(FTPScript.normalized(dropped) == FTPScript.jobFailed(.transient))
            #expect(driver.data == Array(Self.payload.prefix(1000)))
            let resumed = try driver.run(.startJob(.retrieve(try FTPPath(urlPath: "/pub/file.bin")))) { _ in 1000 }
            #expect(resumed == .jobFinished(.retrieved(offset: 1000, bytes: 149_000)))
            let denied = try driver.run(.startJob(.retrieve(try FTPPath(urlPath: "/pub/small.txt")))) { _ in 0 }
            #expect(FTPScript.normalized(denied) == FTPScript.jobFailed(.notFound))
        }
        try await Self.withDriver({ $0.dataFaults = [.drop(afterBytes: 10, reply: "226 Transfer complete.")] }) { driver, _ in
            let lied = try driver.run(.startJob(.retrieve(try FTPPath(urlPath: "/pub/file.bin")))) { _ in 0 }
            #expect(FTPScript.normalized(lied) == FTPScript.jobFailed(.transient))
        }
    }

    @Test func changesDirectories() async throws {
        var machine = FTPControlMachine.Configuration()
        machine.pathMode = .changeDirectories
        try await Self.withDriver(machine: machine) { driver, server in
            let deep = try driver.run(.startJob(.retrieve(try FTPPath(urlPath: "/pub/sub/deep.txt")))) { _ in 0 }
            #expect(deep == .jobFinished(.retrieved(offset: 0, bytes: 5)))
            let small = try driver.run(.startJob(.retrieve(try FTPPath(urlPath: "/pub/small.txt")))) { _ in 0 }
            #expect(small == .jobFinished(.retrieved(offset: 0, bytes: 6)))
            #expect(server.commands.filter { $0.verb == "CWD" }.map(\.argument) == ["pub", "sub", "/", "pub"])
        }
    }

    @Test func wrongPassword() async throws {
        var options = FTPTestServerOptions(files: Self.files)
        options.users = ["alice": "right"]
        let server = try await FTPTestServer.start(options)
        var machine = FTPControlMachine.Configuration()
        machine.user = "alice"
        machine.password = "wrong"
        let action = Result { () throws -> FTPControlMachine.Action in
            let driver = try BlockingFTPDriver(port: server.port, configuration: machine)
            defer { driver.close() }
            return try driver.run(nil)
        }
        try await server.stop()
        #expect(FTPScript.normalized(try action.get()) == FTPScript.fail(.authentication))
    }
}

/// Performs a machine's actions with blocking loopback sockets (10 s receive timeouts, so a
/// broken test fails instead of hanging).
final class BlockingFTPDriver {
    struct SocketError: Error { let call: String }

    private var machine: FTPControlMachine
    private let control: Int32
    private var parser = FTPReplyParser()
    private var replies: [FTPReply] = []
    private var listener: Int32 = -1
    private var dataSocket: Int32 = -1
    /// The bytes of the last data connection.
    private(set) var data: [UInt8] = []

    init(port: Int, configuration: FTPControlMachine.Configuration) throws {
        machine = FTPControlMachine(configuration: configuration)
        control = try Self.connect(port: port)
    }

    func close() {
        for fd in [control, listener, dataSocket] where fd >= 0 { _ = Glibc.close(fd) }
    }

    /// Feeds `event` (nil: the next reply) and performs actions until one for the caller:
    /// ready, a job's end, a failure or close. `decide` answers the metadata.
    func run(_ event: FTPControlMachine.Event?, decide: (FTPControlMachine.FileInfo) -> Int64 = { _ in 0 }) throws -> FTPControlMachine.Action {
        var action = try machine.handle(event ?? .reply(nextReply()))
        while true {
            switch action {
            case .wait:
                action = machine.handle(.reply(try nextReply()))
            case .send(let command):
                try write(control, command.wire)
                action = machine.handle(.reply(try nextReply()))
            case .openDataConnection(let port, _, _):
                data = []
                dataSocket = try Self.connect(port: port)
                action = machine.handle(.dataConnectionOpened)
            case .listenForDataConnection:
                data = []
                let (fd, port) = try Self.listen()
                listener = fd
                action = machine.handle(.dataListenerReady(host: "127.0.0.1", port: port))
            case .transfer(let command, _):
                // Sequentially: the first reply, then (after a 1yz) the data to its end, then the
                // rest of the replies. A NIO driver reads both connections at once instead.
                try write(control, command.wire)
                let first = try nextReply()
                action = machine.handle(.reply(first))
                guard first.kind == .preliminary, action == .wait else { continue }
                if dataSocket < 0 {
                    dataSocket = Glibc.accept(listener, nil, nil)
                    guard dataSocket >= 0 else { throw SocketError(call: "accept") }
                    _ = machine.handle(.dataConnectionOpened)
                }
                action = machine.handle(.dataConnectionClosed(receivedBytes: Int64(readToEnd(dataSocket))))
                closeData()
            case .closeDataConnection:
                closeData()
                action = machine.handle(.dataConnectionClosed(receivedBytes: 0))
            case .deliverMetadata(let info):
                action = machine.handle(.beginTransfer(offset: decide(info)))
            case .startControlTLS:
                throw SocketError(call: "TLS is not part of this driver")
            case .ready, .jobFinished, .jobFailed, .fail, .close:
                closeData()
                return action
            }
        }
    }

    private func closeData() {
        for fd in [dataSocket, listener] where fd >= 0 { _ = Glibc.close(fd) }
        dataSocket = -1
        listener = -1
    }

    private func nextReply() throws -> FTPReply {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while replies.isEmpty {
            let count = recv(control, &buffer, buffer.count, 0)
            guard count > 0 else { throw SocketError(call: "recv control") }
            replies += try parser.feed(buffer.prefix(count))
        }
        return replies.removeFirst()
    }

    private func readToEnd(_ fd: Int32) -> Int {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var total = 0
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return total }
            data += buffer.prefix(count)
            total += count
        }
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) throws {
        guard send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { throw SocketError(call: "send") }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        return address
    }

    private static func socket() throws -> Int32 {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketError(call: "socket") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    private static func connect(port: Int) throws -> Int32 {
        let fd = try socket()
        var address = loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            _ = Glibc.close(fd)
            throw SocketError(call: "connect")
        }
        return fd
    }

    private static func listen() throws -> (Int32, Int) {
        let fd = try socket()
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && Glibc.listen(fd, 1) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            _ = Glibc.close(fd)
            throw SocketError(call: "listen")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
