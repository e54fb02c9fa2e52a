import ArgumentParser
import SwgetKit
#if canImport(Glibc)
import Glibc
#endif


struct SwgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swget",
        abstract: "Download files over HTTP and HTTPS.",
        discussion: """
        Each URL is saved to a file in the current directory (or -P DIR), named after \
        Content-Disposition, the URL, or index.html, never overwriting an existing file: a \
        number goes before the extension instead (index-1.html). Bytes go to NAME.part first \
        and are renamed to NAME when complete.

        Exit status: 0 success, 1 generic error, 2 usage error, 3 file I/O error, 4 network \
        failure, 5 TLS verification failure, 6 authentication failure, 7 protocol error, \
        8 server error response; 130/143 interrupted (the .part is kept). With several URLs the \
        most severe wins.

        An interrupted download continues when the same command runs again: its state is kept \
        in NAME.swget beside NAME.part.

        Compression: swget asks for uncompressed bodies unless --compressed is given, and \
        decodes gzip, deflate, br and zstd bodies whichever way they come (--no-decompress \
        keeps them as sent). A decoded body cannot be continued: an interrupted one starts \
        over. --gunzip stores .gz files decompressed.
        """,
        version: "swget \(SwgetVersion.string)"
    )

    @Argument(help: "The URLs to download (http:// is assumed when no scheme is given).")
    var urls: [String] = []

    @Option(name: [.customShort("i"), .customLong("input-file")],
            help: ArgumentHelp("Read URLs from FILE ('-' for standard input), one per line; blank lines and # comments are skipped (repeatable).",
                               valueName: "FILE"),
            completion: .file())
    var inputFiles: [String] = []

    @Option(name: [.customShort("j"), .customLong("parallel")],
            help: ArgumentHelp("Download up to N files at once (default 4; 1 is one after another, as wget).", valueName: "N"))
    var parallel: Int = 4

    @Option(name: [.customShort("s"), .customLong("split"), .customShort("x"), .customLong("max-connection-per-server")],
            help: ArgumentHelp("Fetch each file over up to N connections in segments, when the server allows ranges (default 1).",
                               valueName: "N"))
    var split: Int = 1

    @Option(name: .customLong("min-split-size"),
            help: ArgumentHelp("Never make segments smaller than SIZE (default 1M).", valueName: "SIZE"))
    var minSplitSize: String?

    @Option(name: .customLong("limit-rate"),
            help: ArgumentHelp("Receive at most RATE bytes per second over all transfers together (500k, 2M).", valueName: "RATE"))
    var limitRate: String?

    @Option(name: .customLong("max-connections-per-host"),
            help: ArgumentHelp("Open at most N connections to one host at once (default: 6, or -j N when larger).", valueName: "N"))
    var maxConnectionsPerHost: Int?

    @Option(name: [.customShort("O"), .customLong("output-document")],
            help: ArgumentHelp("Write the document to FILE ('-' for standard output), replacing it.", valueName: "FILE"),
            completion: .file())
    var outputDocument: String?

    @Option(name: [.customShort("P"), .customLong("directory-prefix")],
            help: ArgumentHelp("Save files into DIR (created if missing).", valueName: "DIR"),
            completion: .directory)
    var directoryPrefix: String?

    @Flag(name: [.customShort("q"), .customLong("quiet")], help: "Print nothing but errors.")
    var quiet = false

    @Flag(name: [.customLong("nv", withSingleDash: true), .customLong("no-verbose")],
          help: "One summary line per file and errors; no progress indicator.")
    var noVerbose = false

    @Option(name: .customLong("progress"),
            help: ArgumentHelp("""
                Progress indicator: bar (the default on a terminal; bar:force elsewhere too), \
                dot[:default|binary|mega|giga] (wget's log-friendly dots), json (one JSON object per \
                event on stderr) or none.
                """, valueName: "TYPE"))
    var progress: String?

    @Flag(name: .customLong("show-progress"), help: "Show the progress indicator even with -q or -nv.")
    var showProgress = false

    @Flag(name: .customLong("spider"), help: "Only check that the URLs exist (HEAD requests); download nothing.")
    var spider = false

    @Flag(name: [.customLong("nc", withSingleDash: true), .customLong("no-clobber")],
          help: "Skip a download whose file already exists instead of choosing a new name.")
    var noClobber = false

    @Option(name: [.customShort("T"), .customLong("timeout")],
            help: ArgumentHelp("Connect and read timeout in seconds.", valueName: "SECONDS"))
    var timeout: Double?

    @Option(name: .customLong("connect-timeout"), help: ArgumentHelp("Connect timeout in seconds (default 30).", valueName: "SECONDS"))
    var connectTimeout: Double?

    @Option(name: .customLong("read-timeout"),
            help: ArgumentHelp("Seconds without a byte before giving up (default 60).", valueName: "SECONDS"))
    var readTimeout: Double?

    @Option(name: [.customShort("U"), .customLong("user-agent")],
            help: ArgumentHelp("Send AGENT as the User-Agent header.", valueName: "AGENT"))
    var userAgent: String?

    @Option(name: [.customShort("H"), .customLong("header")],
            help: ArgumentHelp("Send an extra header 'Name: value' (repeatable).", valueName: "HEADER"))
    var headers: [String] = []

    @Flag(name: [.customShort("S"), .customLong("server-response")], help: "Print the response headers of every hop.")
    var serverResponse = false

    @Option(name: [.customLong("max-redirect"), .customLong("max-redirs")],
            help: ArgumentHelp("Follow at most N redirects (default 20).", valueName: "N"))
    var maxRedirect: Int?

    @Option(name: [.customLong("ca-certificate"), .customLong("cacert")],
            help: ArgumentHelp("Trust the CA certificates in FILE (PEM) too.", valueName: "FILE"),
            completion: .file())
    var caCertificate: [String] = []

    @Flag(name: [.customLong("no-check-certificate"), .customLong("insecure"), .customShort("k")],
          help: "Do not verify the server's certificate.")
    var noCheckCertificate = false

    @Flag(name: .customLong("no-content-disposition"), help: "Ignore the Content-Disposition file name.")
    var noContentDisposition = false

    @Flag(name: .customLong("trust-server-names"), help: "Name the file after the last URL of a redirect chain.")
    var trustServerNames = false

    @Flag(name: .customLong("content-on-error"), help: "Save the body of error responses (4xx, 5xx) too.")
    var contentOnError = false

    @Flag(name: [.customShort("c"), .customLong("continue")],
          help: "Continue a partial file another tool left (NAME.part or NAME); swget's own .part files continue without it.")
    var continuePartial = false

    @Option(name: [.customShort("t"), .customLong("tries")],
            help: ArgumentHelp("Attempts per URL on transient failures (default 20, 0 = unlimited).", valueName: "N"))
    var tries: Int = 20

    @Option(name: [.customLong("waitretry"), .customLong("retry-wait")],
            help: ArgumentHelp("Longest wait between attempts in seconds (default 10).", valueName: "SECONDS"))
    var waitRetry: Double = 10

    @Flag(name: .customLong("retry-connrefused"), help: "Accepted for wget scripts: refused connections are always retried.")
    var retryConnRefused = false

    @Flag(name: .customLong("compressed"),
          help: "Ask for a compressed transfer (gzip, deflate, br, zstd) and save the decoded body.")
    var compressed = false

    @Flag(name: [.customLong("no-decompress"), .customLong("raw")],
          help: "Keep a compressed body exactly as sent (no Content-Encoding decoding).")
    var noDecompress = false

    @Flag(name: [.customLong("gunzip"), .customLong("decode")],
          help: "Store a .gz file decompressed, without its .gz suffix (data.csv.gz -> data.csv).")
    var gunzip = false

    @Option(name: .customLong("max-filesize"),
            help: ArgumentHelp("Refuse files larger than SIZE after decoding (bytes, or with k, M, G: 500k, 2G); exit 1.",
                               valueName: "SIZE"))
    var maxFilesize: String?

    /// ArgumentParser's own entry point, with wget's exit status 2 for usage errors (it
    /// would use 64, EX_USAGE).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success, let shell = CompletionScript.requestedShell(in: Array(CommandLine.arguments.dropFirst())) {
                print(CompletionScript.withoutHelpSubcommand(fullMessage(for: error), shell: shell))
                Glibc.exit(ExitStatus.success.rawValue)
            }
            if code == .validationFailure {
                // ArgumentParser's message already ends with "See 'swget --help' ...".
                Terminal.write(fullMessage(for: error) + "\n")
                Glibc.exit(ExitStatus.usage.rawValue)
            }
            self.exit(withError: error)
        }
    }

    func validate() throws {
        if urls.isEmpty && inputFiles.isEmpty { throw ValidationError("missing URL") }
        if parallel < 1 { throw ValidationError("--parallel must be 1 or more") }
        if let maxConnectionsPerHost, maxConnectionsPerHost < 1 { throw ValidationError("--max-connections-per-host must be 1 or more") }
        if let maxRedirect, maxRedirect < 0 { throw ValidationError("--max-redirect must be 0 or more") }
        if tries < 0 { throw ValidationError("--tries must be 0 or more") }
        if !(waitRetry >= 0 && waitRetry.isFinite) { throw ValidationError("--waitretry must be 0 or more seconds") }
        for value in [timeout, connectTimeout, readTimeout].compactMap({ $0 }) where !(value > 0 && value.isFinite) {
            throw ValidationError("timeouts must be positive numbers of seconds")
        }
        for header in headers where parseHeader(header) == nil {
            throw ValidationError("invalid header '\(header)': expected 'Name: value'")
        }
        if let progress, ProgressChoice(progress) == nil {
            throw ValidationError("invalid --progress '\(progress)': expected bar, bar:force, dot[:default|binary|mega|giga], json or none")
        }
        if split < 1 || split > 64 { throw ValidationError("--split must be between 1 and 64") }
        if let minSplitSize, Units.parseSize(minSplitSize) == nil {
            throw ValidationError("invalid --min-split-size '\(minSplitSize)': expected bytes, or a number with k, M or G")
        }
        if let limitRate, Units.parseSize(limitRate) == nil {
            throw ValidationError("invalid --limit-rate '\(limitRate)': expected bytes per second, or a number with k, M or G")
        }
        if let maxFilesize, Units.parseSize(maxFilesize) == nil {
            throw ValidationError("invalid --max-filesize '\(maxFilesize)': expected bytes, or a number with k, M, G or T")
        }
        if compressed && noDecompress {
            throw ValidationError("--compressed and --no-decompress cannot be combined")
        }
        if outputDocument != nil && directoryPrefix != nil && outputDocument != "-" {
            // wget allows it and ignores -P; be explicit instead of surprising.
            throw ValidationError("-O and -P cannot be combined (give -O a path instead)")
        }
    }

    func run() async throws {
        // A file size limit (ulimit -f) or a full quota must end in a clear write error that
        // keeps the .part, not in a silent kill by SIGXFSZ.
        _ = Glibc.signal(SIGXFSZ, SIG_IGN)
        let (jobs, listErrors) = collectJobs()
        let reporter = makeReporter(files: jobs.count)
        for error in listErrors { reporter.reportFailure(url: error.source, message: error.message, exitCode: ExitStatus.generic.rawValue) }
        let session = Session(configuration: makeConfiguration(), delegate: reporter)
        let interruption = Interruption(session: session)
        let resize = Interruption.onResize { reporter.terminalResized() }
        defer { resize.cancel() }
        let started = Terminal.now()
        let batch = Batch(session: session, reporter: reporter, interruption: interruption, destination: destination, spider: spider)
        let tally = await batch.run(jobs, parallel: parallel)
        session.finishTasksAndInvalidate()
        if let signal = interruption.signal { throw ExitCode(128 + signal) }
        if jobs.count + listErrors.count > 1 && !spider {
            reporter.reportBatch(tally, files: jobs.count, seconds: Terminal.now() - started)
        }
        let worst = listErrors.isEmpty ? tally.worst : max(tally.worst, .generic)
        if worst != .success { throw ExitCode(worst.rawValue) }
    }

    /// The URLs of the command line, then those of each `-i` file; unreadable files and bad
    /// lines become error lines (with their line number) and are skipped.
    private func collectJobs() -> (jobs: [Job], errors: [(source: String, message: String)]) {
        var jobs = urls.map { Job(label: $0, request: makeRequest($0)) }
        var errors: [(source: String, message: String)] = []
        for file in inputFiles {
            guard let text = Self.readInput(file) else {
                errors.append((file, "cannot read the input file"))
                continue
            }
            for entry in InputList.entries(text) {
                guard let request = makeRequest(entry.text) else {
                    // Raw here: the reporter escapes the whole line once (escaping twice shows `\\x1B`).
                    errors.append(("\(file):\(entry.line)", "invalid URL '\(entry.text)'; skipped"))
                    continue
                }
                jobs.append(Job(label: entry.text, request: request))
            }
        }
        return (jobs, errors)
    }

    /// The whole text of `path`, or of standard input for "-".
    private static func readInput(_ path: String) -> String? {
        let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return n == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes += chunk[..<n]
        }
    }

    private func makeReporter(files: Int) -> Reporter {
        let choice = progress.flatMap(ProgressChoice.init) ?? .automatic
        var options = Reporter.Options()
        options.verbosity = quiet ? .quiet : (noVerbose ? .brief : .normal)
        let shown = options.verbosity == .normal || showProgress
        options.indicator = switch choice {
        case .automatic: shown && Terminal.stderrIsTTY ? .bar : .none
        case .bar(let force): shown && (force || Terminal.stderrIsTTY) ? .bar : .none
        case .dot(let style): shown ? .dot(style) : .none
        case .json: .json
        case .none: .none
        }
        options.serverResponse = serverResponse
        options.acceptErrorStatus = contentOnError
        options.decodesContent = !noDecompress
        options.gunzip = gunzip
        options.ascii = !Terminal.localeIsUTF8
        options.filesTotal = files
        return Reporter(options: options)
    }

    private var destination: DownloadDestination {
        var destination: DownloadDestination
        switch outputDocument {
        case "-": destination = .standardOutput
        case let path?: destination = .file(path)
        case nil: destination = .directory(directoryPrefix ?? ".")
        }
        destination.collision = noClobber ? .skip : .uniqueName
        destination.useContentDisposition = !noContentDisposition
        destination.trustServerNames = trustServerNames
        destination.continuePartial = continuePartial
        destination.keepsErrorResponses = contentOnError
        return destination
    }

    private func makeRequest(_ argument: String) -> Request? {
        // Spaces and control characters are never part of a URL typed on a command line.
        guard !argument.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else { return nil }
        let text = argument.contains("://") ? argument : "http://" + argument
        guard var request = Request(string: text) else { return nil }
        if let port = request.url.port, !(1...65535).contains(port) { return nil }
        for header in headers {
            if let (name, value) = parseHeader(header) { request.headers.add(name, value) }
        }
        return request
    }

    private func makeConfiguration() -> SessionConfiguration {
        // A background session: the state of every download lives beside its .part file, so
        // running the same command again continues it (after a crash, Ctrl-C or kill -9).
        var configuration = SessionConfiguration.background(identifier: "swget")
        configuration.retryPolicy.maxAttempts = tries
        configuration.retryPolicy.maxDelay = .milliseconds(Int64(waitRetry * 1000))
        configuration.retryPolicy.initialDelay = min(.seconds(1), configuration.retryPolicy.maxDelay)
        if let timeout {
            configuration.connectTimeout = .seconds(timeout)
            configuration.idleReadTimeout = .seconds(timeout)
        }
        if let connectTimeout { configuration.connectTimeout = .seconds(connectTimeout) }
        if let readTimeout { configuration.idleReadTimeout = .seconds(readTimeout) }
        if let userAgent { configuration.defaultHeaders.set("User-Agent", userAgent) }
        if let maxRedirect { configuration.maxRedirects = maxRedirect }
        // -j N asks for N transfers at once; a list from one host should get them.
        configuration.maxConnectionsPerHost = maxConnectionsPerHost ?? max(configuration.maxConnectionsPerHost, parallel)
        configuration.tls.additionalTrustRootFiles = caCertificate
        if noCheckCertificate { configuration.tls.verification = .none }
        if compressed { configuration.defaultHeaders.set("Accept-Encoding", ContentCoding.acceptAll) }
        configuration.decodesContentEncoding = !noDecompress
        configuration.maximumBodyBytes = maxFilesize.flatMap(Units.parseSize)
        configuration.maximumBytesPerSecond = limitRate.flatMap(Units.parseSize)
        configuration.segmentsPerDownload = split
        if let size = minSplitSize.flatMap(Units.parseSize) { configuration.minimumSegmentBytes = size }
        // Each segment is a connection to the same host.
        if maxConnectionsPerHost == nil { configuration.maxConnectionsPerHost = max(configuration.maxConnectionsPerHost, split) }
        return configuration
    }

    private func parseHeader(_ header: String) -> (String, String)? {
        guard let colon = header.firstIndex(of: ":") else { return nil }
        let name = header[..<colon].trimmingSpaces
        let value = header[header.index(after: colon)...].trimmingSpaces
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }),
              !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else { return nil }
        return (name, value)
    }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}

/// The command's entry point, for the `swget` executable's `main.swift`.
public enum Swget {
    /// Parses `CommandLine.arguments`, runs the downloads and exits with wget's exit status.
    public static func main() async {
        await SwgetCommand.main()
    }
}
