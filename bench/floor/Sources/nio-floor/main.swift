// nio-floor URLS-FILE OUT-DIR PARALLEL LOOPS [handlers|tasks]
//
// Fetches every `http://host:port/path` line of URLS-FILE (one host) over PARALLEL keep-alive
// connections spread over LOOPS event loops, and writes each body to OUT-DIR/<last path
// segment> with open/write/close. No resume, naming rules, events, retries or checks: the cost
// of the mandated stack itself (SwiftNIO's event loops and HTTP/1 codec, Swift's runtime), the
// floor under swget's batch scenario. Measured by hand against curl (bench/README.md).
//
// `handlers` (the default): each connection's channel handler sends the next request when a
// response ends; no Swift concurrency. `tasks`: swget's shape: a Swift task per connection
// running on its event loop (a task executor), a new task per file that sends the request and
// awaits the response's end.
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

struct Target: Sendable {
    let host: String
    let port: Int
    let paths: [String]

    /// Every line `http://host:port/path`; nil at the first line of another form.
    init?(list: String) {
        var host = "", port = 0, paths: [String] = []
        for line in list.split(separator: "\n") where !line.isEmpty {
            guard line.hasPrefix("http://"), let slash = line.dropFirst(7).firstIndex(of: "/") else { return nil }
            let authority = line[line.index(line.startIndex, offsetBy: 7)..<slash]
            guard let colon = authority.firstIndex(of: ":"), let number = Int(authority[authority.index(after: colon)...]) else { return nil }
            host = String(authority[..<colon])
            port = number
            paths.append(String(line[slash...]))
        }
        guard !paths.isEmpty else { return nil }
        (self.host, self.port, self.paths) = (host, port, paths)
    }
}

/// Writes `message` to standard error (Glibc's `stderr` is a global var Swift 6 will not read).
func complain(_ message: String) {
    var message = message
    message.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

func readFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// The next path to fetch, shared by all connections; nil when all were taken.
final class Queue: Sendable {
    let paths: [String]
    private let next = NIOLockedValueBox(0)
    init(_ paths: [String]) { self.paths = paths }
    func take() -> String? {
        next.withLockedValue { index in
            guard index < paths.count else { return nil }
            defer { index += 1 }
            return paths[index]
        }
    }
}

/// One connection. `handlers` mode: sends the next request when a response ends. `tasks`
/// mode: sends what ``fetch(_:)`` asks for and completes its promise at the response's end.
final class Fetcher: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let target: Target, outDir: String, queue: Queue?, done: (@Sendable () -> Void)?
    var descriptor: Int32 = -1
    var context: ChannelHandlerContext?
    var ended: EventLoopPromise<Void>?

    init(target: Target, outDir: String, queue: Queue?, done: (@Sendable () -> Void)?) {
        (self.target, self.outDir, self.queue, self.done) = (target, outDir, queue, done)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func channelActive(context: ChannelHandlerContext) {
        if queue != nil { sendNext(context) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: break
        case .body(let buffer): buffer.withUnsafeReadableBytes { _ = write(descriptor, $0.baseAddress, $0.count) }
        case .end:
            close(descriptor)
            if let ended {
                self.ended = nil
                ended.succeed()
            } else {
                sendNext(context)
            }
        }
    }

    private func sendNext(_ context: ChannelHandlerContext) {
        guard let path = queue?.take() else {
            context.close(promise: nil)
            done?()
            return
        }
        send(path, context)
    }

    func send(_ path: String, ended: EventLoopPromise<Void>) {
        guard let context else { return ended.fail(ChannelError.ioOnClosedChannel) }
        self.ended = ended
        send(path, context)
    }

    private func send(_ path: String, _ context: ChannelHandlerContext) {
        let name = path.split(separator: "/").last.map(String.init) ?? "index"
        descriptor = open(outDir + "/" + name, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0o644)
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
        head.headers.add(name: "Host", value: "\(target.host):\(target.port)")
        head.headers.add(name: "User-Agent", value: "nio-floor")
        head.headers.add(name: "Accept", value: "*/*")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

/// An event loop as a Swift task executor, as SwgetKit's EventLoopExecutor.
final class LoopExecutor: TaskExecutor {
    let loop: any EventLoop
    init(_ loop: any EventLoop) { self.loop = loop }
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 5 || arguments.count == 6, let list = readFile(arguments[1]), let target = Target(list: list),
      let parallel = Int(arguments[3]), parallel > 0, let loops = Int(arguments[4]), loops > 0,
      arguments.count == 5 || ["handlers", "tasks"].contains(arguments[5]) else {
    complain("usage: nio-floor URLS-FILE OUT-DIR PARALLEL LOOPS [handlers|tasks] (every line http://host:port/path, one host)\n")
    exit(2)
}
let outDir = arguments[2]
let queue = Queue(target.paths)
let group = MultiThreadedEventLoopGroup(numberOfThreads: loops)

if arguments.count == 5 || arguments[5] == "handlers" {
    let finished = group.next().makePromise(of: Void.self)
    let closed = NIOLockedValueBox(0)
    let done: @Sendable () -> Void = {
        if closed.withLockedValue({ $0 += 1; return $0 }) == parallel { finished.succeed() }
    }
    for _ in 0..<parallel {
        ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(Fetcher(target: target, outDir: outDir, queue: queue, done: done))
                }
            }
            .connect(host: target.host, port: target.port)
            .whenFailure { error in
                complain("nio-floor: \(error)\n")
                exit(1)
            }
    }
    try await finished.futureResult.get()
} else {
    let executors = (0..<loops).map { _ in LoopExecutor(group.next()) }
    try await withThrowingTaskGroup(of: Void.self) { workers in
        for index in 0..<parallel {
            let executor = executors[index % loops]
            workers.addTask(executorPreference: executor) {
                let channel = try await ClientBootstrap(group: executor.loop)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHTTPClientHandlers()
                            try channel.pipeline.syncOperations.addHandler(Fetcher(target: target, outDir: outDir, queue: nil, done: nil))
                        }
                    }
                    .connect(host: target.host, port: target.port).get()
                let handler = try await channel.eventLoop.submit {
                    NIOLoopBound(try channel.pipeline.syncOperations.handler(type: Fetcher.self), eventLoop: channel.eventLoop)
                }.get()
                while let path = queue.take() {
                    // A task per file, as swget runs each download's transfer.
                    try await Task(executorPreference: executor) {
                        let ended = channel.eventLoop.makePromise(of: Void.self)
                        if channel.eventLoop.inEventLoop {
                            handler.value.send(path, ended: ended)
                        } else {
                            channel.eventLoop.execute { handler.value.send(path, ended: ended) }
                        }
                        try await ended.futureResult.get()
                    }.value
                }
                try await channel.close()
            }
        }
        try await workers.waitForAll()
    }
}
try await group.shutdownGracefully()
