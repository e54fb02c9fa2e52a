import ArgumentParser

/// Configuration: the file and wget's `-e`. These are read before ArgumentParser runs
/// (`ConfigArguments`); they are declared here so that help, the man page and completions show
/// them, and so that ArgumentParser accepts them when it parses the command line again.
struct ConfigOptions: ParsableArguments {
    @Option(name: .customLong("config"),
            help: ArgumentHelp("""
                Read settings from FILE instead of $XDG_CONFIG_HOME/swget/config (~/.config/swget/config) or \
                ~/.swgetrc: one 'name = value' a line, names as the long options (tries = 5, no_check_certificate = on).
                """, valueName: "FILE"),
            completion: .file())
    var config: String?

    @Flag(name: .customLong("no-config"), help: "Read no configuration file.")
    var noConfig = false

    @Option(name: [.customShort("e"), .customLong("execute")],
            help: ArgumentHelp("Run one configuration line after the file, as wget does (-e use_proxy=off, -e robots=off); repeatable.",
                               valueName: "COMMAND"))
    var execute: [String] = []
}
