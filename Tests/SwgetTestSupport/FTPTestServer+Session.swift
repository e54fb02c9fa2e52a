import NIOCore

/// One control connection of ``FTPTestServer``: reads command lines, records them, and answers
/// them one at a time (commands sent during a transfer wait for its end, as on real servers).
/// Everything runs on the connection's event loop.
final class FTPTestSession: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The longest command line read; longer ones end the session (500 and close).
    static let maxLine = 4096

    /// This control connection's number.
    let session: Int
    /// The server's shared state.
    let core: FTPTestServer.Core
    /// The control channel's context while it is open.
    var context: ChannelHandlerContext?
    private var line: [UInt8] = []
    private var queue: [(verb: String, argument: String)] = []
    /// A transfer is running; commands wait.
    var busy = false
    /// The name given with USER.
    var user: String?
    /// PASS was accepted.
    var loggedIn = false
    /// The working directory (absolute).
    var cwd = "/"
    /// The offset of the next RETR (REST), reset by it.
    var restOffset = 0
    /// How the next transfer reaches the client.
    var route = DataRoute.none
    /// The data connection of the running transfer (closed with the session, stalled or not).
    var transferChannel: Channel?

    init(session: Int, core: FTPTestServer.Core) {
        self.session = session
        self.core = core
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        for greeting in core.options.greeting { reply(greeting) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closeRoute()
        transferChannel?.close(promise: nil)
        transferChannel = nil
        self.context = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        while let byte = buffer.readInteger(as: UInt8.self) {
            if byte == 0x0A {
                if line.last == 0x0D { line.removeLast() }
                let text = String(decoding: line, as: UTF8.self)
                line.removeAll(keepingCapacity: true)
                let space = text.firstIndex(of: " ")
                let verb = String(text[..<(space ?? text.endIndex)]).uppercased()
                let argument = space.map { String(text[text.index(after: $0)...]) } ?? ""
                core.record(FTPTestCommand(session: session, verb: verb, argument: argument))
                queue.append((verb, argument))
            } else if line.count < Self.maxLine {
                line.append(byte)
            } else {
                reply("500 Command line too long.")
                context.close(promise: nil)
                return
            }
        }
        runQueue()
    }

    /// Answers queued commands until one starts a transfer.
    func runQueue() {
        while !busy, context != nil, !queue.isEmpty {
            let (verb, argument) = queue.removeFirst()
            handle(verb, argument)
        }
    }

    /// Writes one reply (its lines joined with CRLF).
    func reply(_ text: String) {
        guard let context else { return }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text + "\r\n")), promise: nil)
    }

    private static let beforeLogin: Set<String> = ["USER", "PASS", "QUIT", "FEAT", "SYST", "AUTH", "OPTS", "NOOP"]

    private func handle(_ verb: String, _ argument: String) {
        let options = core.options
        if let refusal = options.refusals[verb] {
            reply(refusal)
            return
        }
        guard loggedIn || Self.beforeLogin.contains(verb) else {
            reply("530 Please login with USER and PASS.")
            return
        }
        switch verb {
        case "USER":
            user = argument
            loggedIn = false
            reply("331 Please specify the password.")
        case "PASS":
            guard let name = user else { return reply("503 Login with USER first.") }
            if (options.allowsAnonymous && (name == "anonymous" || name == "ftp")) || options.users[name] == argument {
                loggedIn = true
                reply("230 Login successful.")
            } else {
                user = nil
                reply("530 Login incorrect.")
            }
        case "QUIT":
            reply("221 Goodbye.")
            context?.close(promise: nil)
        case "FEAT":
            let features = ["EPRT", "EPSV", "MDTM", "MLST type*;size*;modify*;", "PASV", "REST STREAM", "SIZE"]
                .filter { options.refusals[String($0.prefix { $0 != " " })] == nil }
            reply((["211-Features:"] + features.map { " " + $0 } + ["211 End"]).joined(separator: "\r\n"))
        case "SYST": reply("215 UNIX Type: L8")
        case "NOOP": reply("200 NOOP ok.")
        case "OPTS": reply("200 Always in UTF8 mode.")
        case "AUTH": reply("502 TLS is not supported by this test server.")
        case "PBSZ", "PROT": reply("503 PBSZ and PROT need AUTH first.")
        case "TYPE": reply(argument.uppercased().hasPrefix("A") ? "200 Switching to ASCII mode." : "200 Switching to Binary mode.")
        case "PWD", "XPWD": reply("257 \"\(cwd.replacingQuotes)\" is the current directory")
        case "CWD", "CDUP":
            let target = resolve(verb == "CDUP" ? ".." : argument)
            if !options.denied.contains(target), options.isDirectory(target, session: session) {
                cwd = target
                reply("250 Directory successfully changed.")
            } else {
                reply("550 Failed to change directory.")
            }
        case "SIZE":
            guard let file = visibleFile(argument, options) else { return reply("550 Could not get file size.") }
            reply("213 \(file.bytes.count)")
        case "MDTM":
            guard let file = visibleFile(argument, options) else { return reply("550 Could not get file modification time.") }
            reply("213 \(file.modified)")
        case "REST":
            guard let offset = Int(argument), offset >= 0 else { return reply("501 REST requires a value greater than or equal to 0.") }
            restOffset = offset
            reply("350 Restart position accepted (\(offset)).")
        case "MLST":
            mlst(argument, options)
        case "EPSV", "PASV", "EPRT", "PORT":
            dataCommand(verb, argument, options)
        case "RETR":
            retrieve(argument, options)
        case "MLSD", "LIST", "NLST":
            list(verb, argument, options)
        default:
            reply("500 Unknown command.")
        }
    }

    /// The absolute, normalised path for an argument relative to the working directory.
    func resolve(_ argument: String) -> String {
        var parts = argument.hasPrefix("/") ? [] : cwd.split(separator: "/").map(String.init)
        for part in argument.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(String(part))
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    private func visibleFile(_ argument: String, _ options: FTPTestServerOptions) -> FTPTestFile? {
        let path = resolve(argument)
        guard !options.denied.contains(path) else { return nil }
        return options.file(path, session: session)
    }

    private func mlst(_ argument: String, _ options: FTPTestServerOptions) {
        let path = resolve(argument)
        let facts: String
        if options.denied.contains(path) {
            return reply("550 No such file or directory.")
        } else if let file = options.file(path, session: session) {
            facts = "type=file;size=\(file.bytes.count);modify=\(file.modified);perm=r;"
        } else if options.isDirectory(path, session: session) {
            facts = "type=dir;perm=el;"
        } else {
            return reply("550 No such file or directory.")
        }
        reply("250-Listing \(path)\r\n \(facts) \(path)\r\n250 End")
    }

    private func retrieve(_ argument: String, _ options: FTPTestServerOptions) {
        let path = resolve(argument)
        guard let file = visibleFile(argument, options) else {
            restOffset = 0
            return reply("550 Failed to open file.")
        }
        let offset = min(restOffset, file.bytes.count)
        restOffset = 0
        let payload = Array(file.bytes[offset...])
        let fault = core.nextTransferFault()
        transfer(payload, fault: fault, announce: "Opening BINARY mode data connection for \(path) (\(file.bytes.count) bytes).")
    }

    private func list(_ verb: String, _ argument: String, _ options: FTPTestServerOptions) {
        // "LIST -a" (wget) and "LIST -la dir": options are ignored.
        let words = argument.split(separator: " ", omittingEmptySubsequences: true).filter { !$0.hasPrefix("-") }
        let path = resolve(words.joined(separator: " "))
        guard !options.denied.contains(path), options.isDirectory(path, session: session) else {
            return reply("550 Failed to open directory.")
        }
        var lines: [String] = verb == "MLSD" ? ["type=cdir;perm=el; ."] : []
        for (name, file) in options.children(of: path, session: session) {
            switch (verb, file) {
            case ("MLSD", let file?): lines.append("type=file;size=\(file.bytes.count);modify=\(file.modified);perm=r; \(name)")
            case ("MLSD", nil): lines.append("type=dir;perm=el; \(name)")
            case ("NLST", _): lines.append(name)
            case (_, let file?): lines.append("-rw-r--r--    1 ftp      ftp      \(pad(file.bytes.count)) \(listDate(file.modified)) \(name)")
            case (_, nil): lines.append("drwxr-xr-x    2 ftp      ftp          4096 Jan 01  2024 \(name)")
            }
        }
        var payload = Array(lines.map { $0 + "\r\n" }.joined().utf8)
        if verb != "NLST", let extra = options.generatedListingLines[path], extra > 0 {
            let template = verb == "MLSD" ? Array("type=file;size=1234;modify=20240101000000;perm=r; file0000000.bin\r\n".utf8)
                                          : Array("-rw-r--r--    1 ftp      ftp          1234 Jan 01  2024 file0000000.bin\r\n".utf8)
            let digits = template.count - 2 - 4 - 7  // where the seven digits of the name start
            payload.reserveCapacity(payload.count + extra * template.count)
            var line = template
            for index in 0..<extra {
                var number = index
                for position in stride(from: digits + 6, through: digits, by: -1) {
                    line[position] = UInt8(0x30 + number % 10)
                    number /= 10
                }
                payload.append(contentsOf: line)
            }
        }
        transfer(payload, fault: nil, announce: "Here comes the directory listing.")
    }

    private func pad(_ size: Int) -> String {
        let text = String(size)
        return String(repeating: " ", count: max(0, 8 - text.count)) + text
    }

    /// "Jan 02  2024" from "20240102030405".
    private func listDate(_ modified: String) -> String {
        let digits = Array(modified.utf8)
        guard digits.count >= 8, let month = Int(String(decoding: digits[4..<6], as: UTF8.self)), (1...12).contains(month) else {
            return "Jan 01  2024"
        }
        let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(names[month - 1]) \(String(decoding: digits[6..<8], as: UTF8.self))  \(String(decoding: digits[0..<4], as: UTF8.self))"
    }
}

extension String {
    /// The text with each `"` doubled, as PWD replies quote paths (RFC 959 Appendix II).
    fileprivate var replacingQuotes: String {
        split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"")
    }
}
