extension ConfigFile {
    /// What the command line says about configuration, found before ArgumentParser runs:
    /// which file to read, and the `-e` commands.
    public struct Invocation: Sendable, Equatable {
        /// Which configuration file applies.
        public enum Source: Sendable, Equatable {
            /// The first of `defaultPaths(environment:)` that exists, if any.
            case standard
            /// `--config FILE`: this file, which must exist.
            case file(String)
            /// `--no-config`: none.
            case none
        }

        /// The file to read (`.standard` unless the command line says otherwise).
        public var source: Source = .standard
        /// The `-e` / `--execute` commands, in order: run after the file, so they win over it.
        public var commands: [String] = []
    }

    /// Scans `arguments` (without the program name) for `--config FILE`, `--config=FILE`,
    /// `--no-config` (the last of these wins) and `-e CMD`, `-eCMD`, `--execute CMD`,
    /// `--execute=CMD`, up to `--`. Values of other options are skipped, using `options` to
    /// know which take one (`--header -e` is a header, not a command). The arguments are left
    /// as they are: the command declares these options too (for help, man page and
    /// completions), ArgumentParser parses them again and the command ignores them.
    ///
    /// The full argument list is then `tokens(file) + tokens(commands) + arguments`: the
    /// command line wins over `-e`, which wins over the file (wget: "executed after the
    /// commands in .wgetrc, thus taking precedence over them").
    public static func invocation(of arguments: [String], options: OptionTable) -> Invocation {
        var result = Invocation()
        var index = 0
        func next() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            let argument = arguments[index]
            defer { index += 1 }
            if argument == "--" { break }
            if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name = body.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
                switch name {
                case "no-config": result.source = .none
                case "config": if let path = inline ?? next() { result.source = .file(path) }
                case "execute": if let command = inline ?? next() { result.commands.append(command) }
                default: if inline == nil, options.exact[name.lowercased()]?.takesValue == true { _ = next() }
                }
            } else if argument.hasPrefix("-"), argument.count > 1, let letter = argument.dropFirst().first {
                let attached = argument.dropFirst(2)
                if letter == "e" {
                    if let command = attached.isEmpty ? next() : String(attached) { result.commands.append(command) }
                } else if attached.isEmpty, options.shortTakingValue.contains(letter) {
                    _ = next()
                }
            }
        }
        return result
    }
}
