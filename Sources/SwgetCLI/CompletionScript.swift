/// The shell completion scripts, as ArgumentParser generates them minus its phantom `help`.
///
/// ArgumentParser 1.8 injects a `help` subcommand into the description every completion script
/// is generated from (a FIXME in its DumpHelpGenerator), although swget has no subcommands:
/// `swget <TAB>` would offer `help`, which swget then fetches as http://help. These edits take
/// out exactly the lines that offer it; everything else stays as generated. The committed scripts
/// in completions/ are checked against this output, and each shell runs them in the tests.
enum CompletionScript {
    /// The shell asked for by `--generate-completion-script SHELL` (or `=SHELL`), if any.
    static func requestedShell(in arguments: [String]) -> String? {
        let flag = "--generate-completion-script"
        for (index, argument) in arguments.enumerated() {
            if argument == "--" { return nil }
            if argument == flag { return index + 1 < arguments.count ? arguments[index + 1] : nil }
            if argument.hasPrefix(flag + "=") { return String(argument.dropFirst(flag.count + 1)) }
        }
        return nil
    }

    /// `script` without the lines that offer the `help` subcommand.
    static func withoutHelpSubcommand(_ script: String, shell: String) -> String {
        let phantom: (Substring) -> Bool
        switch shell {
        case "bash":
            // The catch-all arm offering subcommand names for the first positional word.
            phantom = { $0 == #"COMPREPLY+=($(compgen -W 'help' -- "${cur}"))"# }
        case "zsh":
            // The states that treat the first positional word as a subcommand (the URLs are
            // described by their own '*:urls:' spec), and the subcommand list.
            phantom = { $0 == "'(-): :->command'" || $0 == "'(-)*:: :->arg'" || $0 == "'help:Show subcommand help information.'" }
        case "fish":
            phantom = { $0.contains("-fa 'help'") || $0.contains(#""swget help""#) }
        default:
            return script
        }
        return script.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !phantom($0.drop { $0 == " " }) }
            .joined(separator: "\n")
    }
}
