import ArgumentParser
import SwgetKit

/// HSTS (RFC 6797): on by default, as in wget, with wget's database file.
struct HSTSOptions: ParsableArguments {
    @Option(name: [.customLong("hsts-file"), .customLong("hsts")],
            help: ArgumentHelp("Keep the known HSTS hosts in FILE (default $XDG_DATA_HOME/swget/hsts; wget's format).",
                               valueName: "FILE"),
            completion: .file())
    var hstsFile: String?

    @Flag(name: .customLong("no-hsts"), help: "Neither use nor learn HSTS policies.")
    var noHSTS = false
}

extension HSTSOptions {
    func validate() throws {
        if noHSTS && hstsFile != nil { throw ValidationError("--no-hsts and --hsts-file cannot be combined") }
    }
}
