import NIOCore
import NIOPosix

/// Data connections of ``FTPTestSession``: a one-shot passive listener on 127.0.0.1 (EPSV,
/// PASV) or a connection to the client's loopback address (EPRT, PORT), and the transfers over
/// them with the configured faults.
extension FTPTestSession {
    /// How the next transfer reaches the client.
    enum DataRoute {
        case none
        /// A listener bound for EPSV/PASV, and the connection it accepted (once it has).
        case passive(listener: Channel, accepted: Channel?, waiting: ((Channel?) -> Void)?)
        /// EPRT/PORT: connect to this address.
        case active(host: String, port: Int)
    }

    /// EPSV, PASV, EPRT, PORT.
    func dataCommand(_ verb: String, _ argument: String, _ options: FTPTestServerOptions) {
        closeRoute()
        switch verb {
        case "EPSV", "PASV":
            if verb == "EPSV", argument.uppercased() == "ALL" { return reply("200 EPSV ALL ok.") }
            if verb == "EPSV", !argument.isEmpty, argument != "1" { return reply("522 Network protocol not supported, use (1)") }
            openPassiveListener(extended: verb == "EPSV", announcing: options.passiveAddress)
        default:
            guard let (host, port) = verb == "EPRT" ? Self.parseEPRT(argument) : Self.parsePORT(argument) else {
                return reply("501 Illegal \(verb) command.")
            }
            // Never connect anywhere but this machine's loopback (no FTP bounce, RFC 2577).
            guard host.hasPrefix("127.") || host == "::1" else { return reply("500 Illegal \(verb) command.") }
            route = .active(host: host, port: port)
            reply("200 \(verb) command successful. Consider using EPSV.")
        }
    }

    private func openPassiveListener(extended: Bool, announcing address: String) {
        guard let context else { return }
        busy = true
        let core = self.core
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        ServerBootstrap(group: context.eventLoop)
            .serverChannelOption(.backlog, value: 4)
            .childChannelInitializer { channel in
                core.track(channel)
                bound.value.accepted(channel)
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0)
            .assumeIsolated()
            .whenComplete { result in
                self.busy = false
                switch result {
                case .success(let listener):
                    core.track(listener)
                    self.route = .passive(listener: listener, accepted: nil, waiting: nil)
                    let port = listener.localAddress?.port ?? 0
                    if extended {
                        self.reply("229 Entering Extended Passive Mode (|||\(port)|)")
                    } else {
                        let host = address.split(separator: ".").joined(separator: ",")
                        self.reply("227 Entering Passive Mode (\(host),\(port >> 8),\(port & 0xFF)).")
                    }
                case .failure:
                    self.reply("425 Cannot open a passive listener.")
                }
                self.runQueue()
            }
    }

    /// The passive listener accepted a connection: keep it (one only; later ones are closed)
    /// and start a waiting transfer.
    func accepted(_ channel: Channel) {
        guard case .passive(let listener, nil, let waiting) = route else {
            channel.close(promise: nil)
            return
        }
        // The listener stays open until the transfer ends: closing it here, inside the child's
        // initializer, would make NIO drop the child it is accepting.
        route = .passive(listener: listener, accepted: channel, waiting: nil)
        waiting?(channel)
    }

    /// Calls `body` with the data connection (nil when none can be had), at once or once the
    /// client connects.
    private func withDataChannel(_ body: @escaping (Channel?) -> Void) {
        switch route {
        case .none:
            body(nil)
        case .passive(_, let accepted?, _):
            body(accepted)
        case .passive(let listener, nil, _):
            route = .passive(listener: listener, accepted: nil, waiting: body)
        case .active(let host, let port):
            guard let context else { return }
            let core = self.core
            ClientBootstrap(group: context.eventLoop)
                .connectTimeout(.seconds(10))
                .connect(host: host, port: port)
                .assumeIsolated()
                .whenComplete { result in
                    switch result {
                    case .success(let channel):
                        core.track(channel)
                        body(channel)
                    case .failure:
                        body(nil)
                    }
                }
        }
    }

    /// Sends `payload` over the data connection (150, the bytes, close, 226), with `fault`.
    func transfer(_ payload: [UInt8], fault: FTPTestDataFault?, announce: String) {
        busy = true
        withDataChannel { channel in
            guard let channel else {
                self.reply("425 Can't open data connection.")
                self.endTransfer()
                return
            }
            self.transferChannel = channel
            self.reply("150 " + announce)
            let sent: [UInt8]
            let ending: String?
            switch fault {
            case nil:
                sent = payload
                ending = "226 Transfer complete."
            case .drop(let count, let reply):
                sent = Array(payload.prefix(max(0, count)))
                ending = reply
            case .stall(let count):
                sent = Array(payload.prefix(max(0, count)))
                ending = nil
            }
            let written = self.send(sent, on: channel, throttle: fault == nil ? self.core.options.throttle : nil)
            // A stall keeps both connections open: the session stays busy until it is closed.
            guard let ending else { return }
            written.assumeIsolated().whenComplete { _ in
                channel.close().assumeIsolated().whenComplete { _ in
                    self.reply(ending)
                    self.endTransfer()
                }
            }
        }
    }

    /// Writes `bytes`, in throttled pieces when asked; the future completes after the last.
    private func send(_ bytes: [UInt8], on channel: Channel, throttle: (bytesPerWrite: Int, interval: TimeAmount)?) -> EventLoopFuture<Void> {
        guard let throttle, throttle.bytesPerWrite > 0, bytes.count > throttle.bytesPerWrite else {
            return channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
        }
        let done = channel.eventLoop.makePromise(of: Void.self)
        let bound = NIOLoopBound(channel, eventLoop: channel.eventLoop)
        @Sendable func piece(from start: Int) {
            let channel = bound.value
            guard channel.isActive else { return done.fail(ChannelError.ioOnClosedChannel) }
            let end = min(bytes.count, start + throttle.bytesPerWrite)
            let written = channel.writeAndFlush(channel.allocator.buffer(bytes: bytes[start..<end]))
            guard end < bytes.count else { return written.cascade(to: done) }
            channel.eventLoop.scheduleTask(in: throttle.interval) { piece(from: end) }
        }
        piece(from: 0)
        return done.futureResult
    }

    private func endTransfer() {
        transferChannel = nil
        closeRoute()
        busy = false
        runQueue()
    }

    /// Closes the listener and data connection of the current route.
    func closeRoute() {
        if case .passive(let listener, let accepted, let waiting) = route {
            listener.close(promise: nil)
            accepted?.close(promise: nil)
            route = .none
            waiting?(nil)
        }
        route = .none
    }

    /// "|1|127.0.0.1|5282|" → ("127.0.0.1", 5282) (RFC 2428 §2).
    static func parseEPRT(_ argument: String) -> (String, Int)? {
        guard let delimiter = argument.first else { return nil }
        let parts = argument.split(separator: delimiter, omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[4].isEmpty, parts[1] == "1" || parts[1] == "2",
              let port = Int(parts[3]), (1...65535).contains(port) else { return nil }
        return (String(parts[2]), port)
    }

    /// "127,0,0,1,20,158" → ("127.0.0.1", 5278) (RFC 959 §4.1.2).
    static func parsePORT(_ argument: String) -> (String, Int)? {
        let numbers = argument.split(separator: ",").compactMap { Int($0.filter { $0 != " " }) }
        guard numbers.count == 6, numbers.allSatisfy({ (0...255).contains($0) }) else { return nil }
        let port = numbers[4] << 8 | numbers[5]
        guard port > 0 else { return nil }
        return (numbers.prefix(4).map(String.init).joined(separator: "."), port)
    }
}
