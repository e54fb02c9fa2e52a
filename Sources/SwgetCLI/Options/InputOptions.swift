import ArgumentParser
import SwgetKit

/// Input and batches.
struct InputOptions: ParsableArguments {
    @Option(name: [.customShort("i"), .customLong("input-file")],
            help: ArgumentHelp("Read URLs from FILE ('-' for standard input, or an http(s)/ftp URL to fetch the list from), one per line; blank lines and # comments are skipped (repeatable).",
                               valueName: "FILE"),
            completion: .file())
    var inputFiles: [String] = []

    @Option(name: [.customShort("B"), .customLong("base")],
            help: ArgumentHelp("Resolve the lines of -i lists that have no scheme (a/b.iso, /c.iso, ../d) against URL.", valueName: "URL"))
    var base: String?

    @Option(name: [.customShort("j"), .customLong("parallel")],
            help: ArgumentHelp("Download up to N files at once (default 4; 1 is one after another, as wget).", valueName: "N"))
    var parallel: Int = 4

    @Option(name: .customLong("max-connections-per-host"),
            help: ArgumentHelp("Open at most N connections to one host at once (default: 6, or -j N when larger).", valueName: "N"))
    var maxConnectionsPerHost: Int?
}

extension InputOptions {
    func validate() throws {
        if parallel < 1 { throw ValidationError("--parallel must be 1 or more") }
        if let maxConnectionsPerHost, maxConnectionsPerHost < 1 { throw ValidationError("--max-connections-per-host must be 1 or more") }
        if let base, InputList.baseURL(base) == nil {
            throw ValidationError("--base takes an absolute http(s) or ftp(s) URL, not '\(DisplayText.sanitize(base))'")
        }
    }

    func apply(to configuration: inout SessionConfiguration, split: Int) {
        // -j N asks for N transfers at once, and each segment of --split is a connection to the
        // same host: a list from one host should get them.
        configuration.maxConnectionsPerHost = maxConnectionsPerHost ?? max(configuration.maxConnectionsPerHost, parallel, split)
    }
}
