import ArgumentParser
import SwgetKit
#if canImport(Glibc)
import Glibc
#endif

/// Logs and reports: where messages go, how much they say, and what is printed for scripts.
struct LogOptions: ParsableArguments {
    @Option(name: [.customShort("o"), .customLong("output-file")],
            help: ArgumentHelp("Write messages to FILE instead of standard error (wget's log file; no progress bar in it).",
                               valueName: "FILE"),
            completion: .file())
    var outputFile: String?

    @Option(name: [.customShort("a"), .customLong("append-output")],
            help: ArgumentHelp("Like -o, but append to FILE.", valueName: "FILE"),
            completion: .file())
    var appendOutput: String?

    @Flag(name: [.customShort("d"), .customLong("debug")],
          help: "Also show connections opened and reused, each request and response head, and TLS details; credentials are masked.")
    var debug = false

    @Flag(name: [.customShort("v"), .customLong("verbose")], help: "Normal messages and progress (the default; for wget scripts).")
    var verbose = false

    @Flag(name: [.customShort("s"), .customLong("save-headers")],
          help: "Put the response head at the start of each saved file, followed by an empty line (wget).")
    var saveHeaders = false

    @Option(name: .customLong("write-out"),
            help: ArgumentHelp("""
                After each URL print FORMAT on standard output, curl's variables filled in: %{http_code}, \
                %{url_effective}, %{filename_effective}, %{size_download}, %{speed_download}, %{time_total}, \
                %{time_connect}, %{time_starttransfer}, %{num_redirects}, %{exitcode}, %{json}, %header{NAME}... \
                \\n and \\t are escapes; @FILE reads the format from FILE (@- from standard input).
                """, valueName: "FORMAT"))
    var writeOut: String?
}

extension LogOptions {
    /// The log file when `-o` or `-a` names one (`-a` wins when both do), and whether to append.
    var logFile: (path: String, append: Bool)? {
        if let appendOutput { return (appendOutput, true) }
        return outputFile.map { ($0, false) }
    }

    /// Sends the process's standard error to the log file (`-o`/`-a`), before anything is
    /// written: every message, warning and error line then goes there, and no progress bar is
    /// drawn (standard error is no longer a terminal). Throws a line to show when the file
    /// cannot be opened.
    func redirectStandardError() throws(LogFileError) {
        guard let file = logFile else { return }
        let path = file.path
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (file.append ? O_APPEND : O_TRUNC)
        let fd = open(path, flags, 0o666)
        guard fd >= 0 else { throw LogFileError(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        guard dup2(fd, STDERR_FILENO) >= 0 else { throw LogFileError(path: path, reason: String(cString: strerror(errno))) }
    }

    /// The `--write-out` format, read from its file when it is `@FILE`; nil without the option.
    func writeOutFormat() throws(LogFileError) -> WriteOutFormat? {
        guard let writeOut else { return nil }
        let path: String
        switch WriteOutFormat.source(of: writeOut) {
        case .inline(let text): return WriteOutFormat(parsing: text)
        case .file(let file): path = file
        case .standardInput: path = "-"
        }
        guard let text = TextFile.read(path, limit: 1 << 20) else {
            throw LogFileError(path: path, reason: "cannot read the --write-out format")
        }
        return WriteOutFormat(parsing: text)
    }
}

/// A file named by a logging option that cannot be used (exit 3).
struct LogFileError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "\(DisplayText.sanitize(path)): \(DisplayText.sanitize(reason))" }
}
