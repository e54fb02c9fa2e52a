#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Where the configuration meets the command line: the tokens of the configuration file and of
/// each `-e COMMAND` go before the command line's own arguments, so that the command line wins
/// (`ConfigFile` turns lines into tokens; this type finds the lines).
enum ConfigArguments {
    /// What the expansion needs from the outside world, so tests can give their own.
    struct Environment {
        var variables: [String: String]
        /// The text of a file, nil when it cannot be read.
        var read: (String) -> String?
        /// True when something exists at the path (a file that cannot be read is an error,
        /// one that does not exist is skipped).
        var exists: (String) -> Bool
        /// The command's options (built only when a file or a command needs them).
        var options: () -> ConfigFile.OptionTable

        /// The process's environment and file system, and the command's own options.
        static var process: Environment {
            Environment(variables: ProcessInfo.processInfo.environment,
                        read: { TextFile.read($0, limit: ConfigFile.maxBytes + 1) },
                        exists: { access($0, F_OK) == 0 },
                        options: { CommandOptions.table })
        }
    }

    /// `arguments` (without the program name) preceded by the configuration's tokens.
    static func expand(_ arguments: [String], in environment: Environment) throws(ConfigFile.ParseError) -> [String] {
        // The common case costs one access(2) per candidate file: no option table is built.
        let mentionsConfiguration = arguments.contains { $0.hasPrefix("-e") || $0.hasPrefix("--e") || $0.hasPrefix("--config") || $0 == "--no-config" }
        let standardFile = ConfigFile.defaultPaths(environment: environment.variables).first(where: environment.exists)
        guard mentionsConfiguration || standardFile != nil else { return arguments }
        let options = environment.options()
        let invocation = ConfigFile.invocation(of: arguments, options: options)
        var tokens: [String] = []
        let path: String? = switch invocation.source {
        case .standard: standardFile
        case .file(let path): path
        case .none: nil
        }
        if let path {
            guard let text = environment.read(path) else {
                throw ConfigFile.ParseError(source: path, line: nil, reason: "cannot read the configuration file")
            }
            tokens += try ConfigFile.arguments(parsing: text, source: path, options: options)
        }
        for command in invocation.commands {
            tokens += try ConfigFile.arguments(executing: command, options: options)
        }
        return tokens + arguments
    }
}

/// The command's long options, as ArgumentParser declares them (from its JSON description of
/// the command, the same one the man page is made from).
enum CommandOptions {
    static var table: ConfigFile.OptionTable {
        ConfigFile.OptionTable(options(fromDump: SwgetCommand._dumpHelp()))
    }

    /// The options of `swget --experimental-dump-help`'s JSON.
    static func options(fromDump json: String) -> [ConfigFile.Option] {
        guard let info = try? JSONDecoder().decode(Dump.self, from: Data(json.utf8)) else { return [] }
        var result: [ConfigFile.Option] = []
        for argument in info.command.arguments ?? [] where argument.kind != "positional" {
            let names = argument.names ?? []
            let short = names.first { $0.kind == "short" }?.name.first
            // `-nv` and `-nc` have long names too; a single-dash name cannot be a `--name` token.
            for name in names where name.kind == "long" {
                result.append(ConfigFile.Option(name.name, takesValue: argument.kind == "option", shortName: short))
            }
        }
        return result
    }

    private struct Dump: Decodable {
        struct Command: Decodable {
            let arguments: [Argument]?
        }
        struct Argument: Decodable {
            struct Name: Decodable {
                let kind: String
                let name: String
            }
            let kind: String
            let names: [Name]?
        }
        let command: Command
    }
}
