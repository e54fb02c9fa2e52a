import ArgumentParser
import CMalloc
import Dispatch
import NIOCore
import NIOPosix
import SwgetKit
#if canImport(Glibc)
import Glibc
#endif


struct SwgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swget",
        abstract: "Download files over HTTP, HTTPS, FTP and FTPS (and file: and data: URLs).",
        discussion: """
        Each URL is saved to a file in the current directory (or -P DIR), named after \
        Content-Disposition, the URL, or index.html, never overwriting an existing file: a \
        number goes before the extension instead (index-1.html). Bytes go to NAME.part first \
        and are renamed to NAME when complete.

        Exit status: 0 success, 1 generic error (also a TLS file that cannot be used, or an \
        http:// URL or redirect refused by --https-only), 2 usage error, 3 file I/O error, 4 network \
        failure, 5 TLS verification failure (also a public-key pin mismatch or a revoked \
        certificate), 6 authentication failure, 7 protocol error, \
        8 server error response; 130/143 interrupted (the .part is kept). With several URLs the \
        most severe wins.

        An interrupted download continues when the same command runs again: its state is kept \
        in NAME.swget beside NAME.part.

        Compression: swget asks for uncompressed bodies unless --compressed is given, and \
        decodes gzip, deflate, br and zstd bodies whichever way they come (--no-decompress \
        keeps them as sent). A decoded body cannot be continued: an interrupted one starts \
        over. --gunzip stores .gz files decompressed.

        Uploads: --upload-file FILE (PUT; - for standard input), --post-data and --post-file, \
        --data, --json and --form (curl's forms), --method or --request send a body or another \
        method. Files and standard input stream with flat memory; the answer is saved like any \
        download (-O - prints it). A body read from standard input is sent once: a 307/308 \
        redirect or a retry after it went fails with a clear error. A POST is never retried once \
        its body started.
        """,
        version: "swget \(SwgetVersion.string)"
    )

    @Argument(help: "The URLs to download (http:// is assumed when no scheme is given).")
    var urls: [String] = []

    @OptionGroup(title: "Input and batches") var input: InputOptions
    @OptionGroup(title: "Where files go") var destination: DestinationOptions
    @OptionGroup(title: "Directories, names and timestamps") var layout: LayoutOptions
    @OptionGroup(title: "Conditional downloads") var conditions: ConditionOptions
    @OptionGroup(title: "Output") var output: OutputOptions
    @OptionGroup(title: "HTTP") var http: HTTPOptions
    @OptionGroup(title: "TLS") var tls: TLSOptions
    @OptionGroup(title: "HSTS") var hsts: HSTSOptions
    @OptionGroup(title: "Authentication") var auth: AuthOptions
    @OptionGroup(title: "Cookies") var cookies: CookieOptions
    @OptionGroup(title: "Proxies") var proxies: ProxyOptions
    @OptionGroup(title: "Network") var network: NetworkOptions
    @OptionGroup(title: "Retries, timeouts and speed") var transfer: TransferOptions
    @OptionGroup(title: "FTP") var ftp: FTPOptions
    @OptionGroup(title: "Logs and reports") var logging: LogOptions
    @OptionGroup(title: "Waiting between downloads") var waits: WaitOptions
    @OptionGroup(title: "Configuration") var config: ConfigOptions
    @OptionGroup(title: "Uploads and request methods") var upload: UploadOptions

    /// ArgumentParser's parse, with wget's exit status 2 for usage errors (it would use 64,
    /// EX_USAGE): the command line with the configuration files' options in front. Prints the
    /// help, the version or the error and exits when there is nothing to download.
    ///
    /// Synchronous, so that the executable parses on its main thread, before any thread
    /// switch, while the event loops start on other threads.
    static func parseCommandLine() -> SwgetCommand {
        startEventLoops()
        ParseWarmUp.start()
        let arguments: [String]
        do {
            arguments = try ConfigArguments.expand(Array(CommandLine.arguments.dropFirst()), in: .process)
        } catch {
            Terminal.write("swget: \(DisplayText.sanitize(error.description))\n")
            Glibc.exit(ExitStatus.usage.rawValue)
        }
        do {
            var parsed = try parseAsRoot(arguments)
            if let command = parsed as? SwgetCommand { return command }
            // ArgumentParser's own commands (`--help` comes back as its HelpCommand) run here.
            try parsed.run()
            Glibc.exit(ExitStatus.success.rawValue)
        } catch {
            exit(after: error)
        }
    }

    /// Runs a parsed command and exits with wget's exit status for how it ended.
    @concurrent static func run(_ command: SwgetCommand) async -> Never {
        do {
            try await command.run()
        } catch {
            exit(after: error)
        }
        Glibc.exit(ExitStatus.success.rawValue)
    }

    /// Prints what ArgumentParser says about `error` (nothing for a clean `ExitCode`) and
    /// exits with its status: 2 for usage errors, as wget does.
    private static func exit(after error: Error) -> Never {
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

    /// Starts the event loops on another thread while ArgumentParser reads the command line,
    /// which takes this one about 5 ms: before, the loops (two threads, each with its epoll,
    /// event and timer descriptors) were made after the parse, on the way to the first request.
    /// `--version`, `--help` and usage errors start them too and exit without using them.
    ///
    /// One event loop per core, at most four: a batch runs one lane per loop, each job on its
    /// lane's thread beside its connection (Batch.run), so the loops never wake each other; on
    /// two cores a batch of 1,000 small files took a third less wall time than on one loop. A
    /// single download stays on one loop, which writes at the speed of a bare read/write loop.
    /// Name lookups run off the loops (TimedResolver, AddressFamilyResolver), so a slow DNS
    /// answer stalls no other transfer. The count is set here, once and before anything uses
    /// the loops, as NIO requires.
    private static func startEventLoops() {
        NIOSingletons.groupLoopCountSuggestion = min(max(System.coreCount, 1), 4)
        DispatchQueue.global().async { _ = MultiThreadedEventLoopGroup.singleton }
    }

    func validate() throws {
        if urls.isEmpty && input.inputFiles.isEmpty { throw ValidationError("missing URL") }
        let plan = try upload.plan(commandLine: Array(CommandLine.arguments.dropFirst()), spider: output.spider)
        if plan.body?.readsStandardInput == true && input.inputFiles.contains("-") {
            throw ValidationError("standard input cannot hold both the URL list (-i -) and the request body")
        }
        if layout.timestamping && (conditions.timeCond != nil || conditions.etagCompare != nil) {
            throw ValidationError("-N cannot be combined with --time-cond or --etag-compare (each sets the download's condition)")
        }
    }

    func run() async throws {
        // A file size limit (ulimit -f) or a full quota must end in a clear write error that
        // keeps the .part, not in a silent kill by SIGXFSZ.
        _ = Glibc.signal(SIGXFSZ, SIG_IGN)
        // malloc keeps what it frees (up to 64 MiB) instead of handing pages back at once: with
        // two event loops glibc trimmed each thread's heap with madvise, which flushes the other
        // core's TLB, and every page came back through a page fault. A batch of 1,000 small
        // files had 6,000 page faults instead of 2,800 and took 15% more CPU. Blocks up to
        // 4 MiB (every buffer swget uses) come from the heap, so the big ones are reused rather
        // than mapped and unmapped each time. Peak memory is what is live at once either way.
        _ = mallopt(M_TRIM_THRESHOLD, 64 << 20)
        _ = mallopt(M_MMAP_THRESHOLD, 4 << 20)
        let writeOut: WriteOutFormat?
        do throws(LogFileError) {
            try logging.redirectStandardError()
            writeOut = try logging.writeOutFormat()
        } catch {
            Terminal.write("swget: \(error.description)\n")
            throw ExitCode(ExitStatus.fileIO.rawValue)
        }
        let credential = try auth.credential()
        let body = try prepareBody()
        let condition: CachePolicy?
        do throws(TagFileError) {
            condition = conditions.cachePolicy(entityTag: try conditions.storedEntityTag())
        } catch {
            Terminal.write("swget: --etag-compare: \(error.description)\n")
            throw ExitCode(ExitStatus.fileIO.rawValue)
        }
        let remoteLists = await fetchRemoteLists(credential: credential)
        let (jobs, listErrors) = collectJobs(credential: credential, body: body, condition: condition, remoteLists: remoteLists)
        if body?.isSingleUse == true && jobs.count > 1 {
            throw ValidationError("a request body read from standard input or a pipe can be sent to one URL only")
        }
        if (conditions.etagSave != nil || conditions.etagCompare != nil) && jobs.count + listErrors.count > 1 {
            throw ValidationError("--etag-save and --etag-compare take one URL (the tag file belongs to it)")
        }
        let reporter = makeReporter(files: jobs.count)
        var configuration: SessionConfiguration
        do {
            configuration = try makeConfiguration(warn: { reporter.reportWarning($0) })
        } catch {
            Terminal.write("swget: \(DisplayText.sanitize(error.description))\n")
            throw ExitCode(ExitStatus.generic.rawValue)
        }
        for error in listErrors { reporter.reportFailure(url: error.source, message: error.message, exitCode: error.status.rawValue) }
        let warn: (String) -> Void = { reporter.warn($0) }
        configuration.netrc = try auth.netrc(warn: warn)
        configuration.proxy = try proxies.configuration(environment: ProxyOptions.processEnvironment)
        let stores = StoreFiles(cookies: cookies, hsts: hsts)
        do {
            try stores.load(into: &configuration, urls: jobs.compactMap { $0.request?.url }, warn: warn)
        } catch let error as StoreFiles.FileError {
            reporter.reportFailure(url: "swget", message: error.description, exitCode: ExitStatus.fileIO.rawValue)
            throw ExitCode(ExitStatus.fileIO.rawValue)
        }
        // The transfers and the reporter run on the thread of the one event loop: the reporter
        // formats a line or a bar and writes it, and never blocks; no thread switch per file.
        let session = Session(configuration: configuration, delegate: reporter, threading: .eventLoop)
        let interruption = Interruption(session: session)
        let resize = Interruption.onResize { reporter.terminalResized() }
        defer { resize.cancel() }
        let started = Terminal.now()
        var batch = Batch(session: session, reporter: reporter, interruption: interruption,
                          placement: layout.placement(destination.destination), spider: output.spider, expandsFTPGlobs: ftp.glob)
        batch.pacing = waits.pacing
        let reports = JobReports(saveHeaders: logging.saveHeaders, writeOut: writeOut, reporter: reporter,
                                 conditions: conditions, deletesAfter: destination.deleteAfter)
        if !reports.isEmpty { batch.finished = { await reports.finished($0) } }
        for warning in writeOut?.warnings ?? [] { reporter.warn(warning) }
        let tally = await batch.run(jobs, parallel: input.parallel)
        session.finishTasksAndInvalidate()
        stores.save(configuration, warn: warn)
        let worst = listErrors.reduce(tally.worst) { max($0, $1.status) }
        let exitCode = interruption.signal.map { 128 + $0 } ?? worst.rawValue
        reporter.reportSummary(tally, files: jobs.count + listErrors.count, failedBefore: listErrors.count,
                               seconds: Terminal.now() - started, exitCode: exitCode)
        if interruption.signal != nil { throw ExitCode(exitCode) }
        if jobs.count + listErrors.count > 1 && !output.spider {
            reporter.reportBatch(tally, files: jobs.count, seconds: Terminal.now() - started)
        }
        if worst != .success { throw ExitCode(worst.rawValue) }
    }

    /// The URLs of the command line, then those of each `-i` list (a file, or a URL fetched
    /// before: `remoteLists`); unreadable lists and bad lines become error lines (with their
    /// line number) and are skipped. `--base` completes relative lines.
    private func collectJobs(credential: Credential?, body: PreparedBody?, condition: CachePolicy?,
                             remoteLists: [String: Result<String, RemoteLists.Failure>]) -> (jobs: [Job], errors: [ListError]) {
        let template = requestTemplate(credential: credential, body: body, condition: condition)
        let make = { (text: String) in Self.makeRequest(text, template) }
        var jobs = urls.map { Job(label: $0, request: make($0)) }
        var errors: [ListError] = []
        let base = input.base.flatMap(InputList.baseURL)
        for file in input.inputFiles {
            let text: String
            switch remoteLists[file] {
            case .success(let fetched)?:
                text = fetched
            case .failure(let failure)?:
                errors.append(ListError(source: file, message: failure.message, status: failure.status))
                continue
            case nil:
                guard let read = TextFile.read(file) else {
                    errors.append(ListError(source: file, message: "cannot read the input file", status: .generic))
                    continue
                }
                text = read
            }
            for entry in InputList.entries(text) {
                guard let resolved = InputList.resolve(entry.text, base: base), let request = make(resolved) else {
                    // Raw here: the reporter escapes the whole line once (escaping twice shows `\\x1B`).
                    errors.append(ListError(source: "\(file):\(entry.line)", message: "invalid URL '\(entry.text)'; skipped", status: .generic))
                    continue
                }
                jobs.append(Job(label: resolved, request: request))
            }
        }
        if tls.httpsOnly {
            // wget's --https-only: an http:// URL is refused before any request.
            let refused = jobs.filter { $0.request.map { $0.url.scheme?.lowercased() != "https" } ?? false }
            errors += refused.map { ListError(source: $0.label, message: Reporter.httpsOnlyRefusal, status: .generic) }
            jobs.removeAll { $0.request.map { $0.url.scheme?.lowercased() != "https" } ?? false }
        }
        return (jobs, errors)
    }

    /// An input list or one of its lines that gives no download.
    struct ListError {
        let source: String
        let message: String
        let status: ExitStatus
    }

    /// `-i URL`: the lists to fetch, fetched with the command's session settings (their
    /// warnings are left to the main session, which loads the same settings again).
    private func fetchRemoteLists(credential: Credential?) async -> [String: Result<String, RemoteLists.Failure>] {
        let remote = input.inputFiles.filter(InputList.isRemote)
        guard !remote.isEmpty else { return [:] }
        guard var configuration = try? makeConfiguration(warn: { _ in }) else {
            // The main session fails with this same error, before any download.
            return Dictionary(remote.map { ($0, .failure(RemoteLists.Failure(message: "the TLS settings cannot be used", status: .generic))) },
                              uniquingKeysWith: { first, _ in first })
        }
        configuration.netrc = try? auth.netrc(warn: { _ in })
        configuration.proxy = try? proxies.configuration(environment: ProxyOptions.processEnvironment)
        var refused: [String: Result<String, RemoteLists.Failure>] = [:]
        var requests: [(argument: String, request: Request?)] = []
        for list in remote {
            let request = Self.makeRequest(list, requestTemplate(credential: credential))
            if tls.httpsOnly, let request, request.url.scheme?.lowercased() != "https" {
                refused[list] = .failure(RemoteLists.Failure(message: Reporter.httpsOnlyRefusal, status: .generic))
            } else {
                requests.append((list, request))
            }
        }
        return await RemoteLists.fetch(requests, configuration: configuration).merging(refused) { fetched, _ in fetched }
    }

    /// The body and method options made into the requests' body, before anything connects: a
    /// file that cannot be read ends the run with exit 3 (a form SwgetKit refuses, exit 2).
    private func prepareBody() throws -> PreparedBody? {
        let plan = try upload.plan(commandLine: Array(CommandLine.arguments.dropFirst()), spider: output.spider)
        guard plan.body != nil || plan.method != "GET" else { return nil }
        do {
            return try PreparedBody(plan)
        } catch {
            Terminal.write("swget: \(DisplayText.sanitize(error.description))\n")
            throw ExitCode(error.status.rawValue)
        }
    }

    private func makeReporter(files: Int) -> Reporter {
        var options = output.reporterOptions(files: files)
        options.acceptErrorStatus = destination.contentOnError
        options.decodesContent = !http.noDecompress
        options.gunzip = http.gunzip
        options.httpsOnly = tls.httpsOnly
        options.debug = logging.debug
        options.serverResponse = options.serverResponse || logging.debug
        return Reporter(options: options)
    }

    /// What every request of the command carries besides its URL, read from the options once:
    /// each read of an option goes through ArgumentParser's property wrapper (~600
    /// instructions), which a batch of 1,000 URLs paid 4,000 times.
    private struct RequestTemplate {
        var headers: [(name: String, value: String)]
        var noCache: Bool
        var credential: Credential?
        var body: PreparedBody?
        var condition: CachePolicy?
    }

    private func requestTemplate(credential: Credential?, body: PreparedBody? = nil,
                                 condition: CachePolicy? = nil) -> RequestTemplate {
        RequestTemplate(headers: http.requestHeaders, noCache: layout.noCache, credential: credential, body: body,
                        condition: condition)
    }

    private static func makeRequest(_ argument: String, _ template: RequestTemplate) -> Request? {
        // Spaces and control characters are never part of a URL typed on a command line. By
        // byte: every byte of a multi-byte scalar is 0x80 or more.
        var (control, nonASCII) = classify(argument)
        guard !control else { return nil }
        // data: URLs have no "//" (RFC 2397).
        var text = hasScheme(argument) ? argument : "http://" + argument
        if let path = template.body?.uploadPath {
            text = BodyArguments.uploadURL(text, uploading: path)
            nonASCII = classify(text).nonASCII
        }
        // Internationalised names and non-ASCII paths: the punycode host (IDNA 2008 / UTS #46
        // through libidn2) and UTF-8 percent-encoding go on the wire.
        if nonASCII || hostIsPercentEncoded(text) {
            guard let typed = try? TypedURL(text) else { return nil }
            text = typed.wire
        }
        guard var request = Request(string: text) else { return nil }
        if let port = request.url.port, !(1...65535).contains(port) { return nil }
        for header in template.headers { request.headers.add(header.name, header.value) }
        if template.noCache { request.cachePolicy = .reloadIgnoringLocalCacheData }
        if let condition = template.condition { request.cachePolicy = condition }
        template.body?.apply(to: &request)
        request.credential = template.credential
        return request
    }

    /// Whether `text` holds a space or control character, and a byte over 0x7F: one plain pass
    /// (two `containsByte(where:)` scans, a closure call a byte, cost about 1,400 instructions
    /// per URL of a batch, before the first download starts).
    static func classify(_ text: String) -> (control: Bool, nonASCII: Bool) {
        text.withBytes { bytes in
            var nonASCII = false
            for byte in bytes {
                if byte <= 0x20 || byte == 0x7F { return (true, nonASCII) }
                if byte > 0x7F { nonASCII = true }
            }
            return (false, nonASCII)
        }
    }

    /// The argument names its scheme (`…://`, or `data:` in any case), byte by byte: one
    /// check per URL of a batch, where a substring search on characters cost ~9,000
    /// instructions.
    static func hasScheme(_ argument: String) -> Bool {
        let bytes = argument.utf8
        let lowered = bytes.prefix(5).lazy.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        if lowered.elementsEqual("data:".utf8) { return true }
        // A plain scan: the standard library's `firstRange(of:)` is generic here and cost more
        // in metadata lookups than the search itself.
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in bytes {
            if previous == (UInt8(ascii: ":"), UInt8(ascii: "/")) && byte == UInt8(ascii: "/") { return true }
            previous = (previous.1, byte)
        }
        return false
    }

    /// `http://b%C3%BCcher.example/`: a host the URL Standard decodes before IDNA.
    private static func hostIsPercentEncoded(_ text: String) -> Bool {
        guard text.containsByte(UInt8(ascii: "%")) else { return false }  // the common case, one byte scan
        guard let start = text.firstRange(of: "://")?.upperBound else { return false }
        return text[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }.contains("%")
    }

    private func makeConfiguration(warn: (String) -> Void) throws(TLSSetupError) -> SessionConfiguration {
        // A background session: the state of every download lives beside its .part file, so
        // running the same command again continues it (after a crash, Ctrl-C or kill -9).
        var configuration = SessionConfiguration.background(identifier: "swget")
        transfer.apply(to: &configuration)
        layout.apply(to: &configuration)
        network.apply(to: &configuration)
        http.apply(to: &configuration)
        for warning in try tls.load(into: &configuration) { warn(warning) }
        auth.apply(to: &configuration)
        input.apply(to: &configuration, split: transfer.split)
        ftp.apply(to: &configuration)
        configuration.emitsDebugEvents = logging.debug
        return configuration
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs. Walks the UTF-8 view from both ends (a
    /// reversed character view made a 1,000-line list cost 6% of a batch).
    var trimmingSpaces: String {
        let bytes = utf8
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}

/// The command's entry point, for the `swget` executable's `main.swift`:
///
///     let command = Swget.parse()
///     await Swget.run(command)
public enum Swget {
    /// A parsed command line, ready to run.
    public struct Command: Sendable {
        fileprivate let command: SwgetCommand
    }

    /// Parses `CommandLine.arguments` on the calling thread; prints the help, the version or a
    /// usage error and exits when there is nothing to download.
    public static func parse() -> Command {
        Command(command: SwgetCommand.parseCommandLine())
    }

    /// Runs the downloads and exits with wget's exit status.
    @concurrent public static func run(_ command: Command) async -> Never {
        await SwgetCommand.run(command.command)
    }
}
