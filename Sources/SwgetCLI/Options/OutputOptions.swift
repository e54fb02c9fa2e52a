import ArgumentParser
import SwgetKit

/// Output.
struct OutputOptions: ParsableArguments {
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

    @Flag(name: [.customShort("S"), .customLong("server-response")],
          help: "Print the response headers of every hop, and the TLS version, cipher and server certificate of each new https connection.")
    var serverResponse = false

    @Flag(name: .customLong("spider"), help: "Only check that the URLs exist (HEAD requests); download nothing.")
    var spider = false
}

extension OutputOptions {
    func validate() throws {
        if let progress, ProgressChoice(progress) == nil {
            throw ValidationError("invalid --progress '\(progress)': expected bar, bar:force, dot[:default|binary|mega|giga], json or none")
        }
    }

    /// What the reporter shows, as asked.
    func reporterOptions(files: Int) -> Reporter.Options {
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
        options.ascii = !Terminal.localeIsUTF8
        options.filesTotal = files
        return options
    }
}
