import SwgetCLI

/// Configuration files (`.swgetrc`, `.wgetrc`-style, `-e`): whatever the text, the arguments it
/// stands for are long options of the command (`--name`, `--name=value`, or `--name` then an
/// empty value), and an error is one line.
enum ConfigFileProperty {
    static func check(_ input: [UInt8]) throws(PropertyFailure) {
        switch CLIFuzzEntry.configArguments(text(input)) {
        case .failure(let error):
            let line = error.description
            try require(!line.contains("\n") && !line.contains("\r"), "error of more than one line: \(line.debugDescription)")
        case .success(let arguments):
            var index = 0
            while index < arguments.count {
                let argument = arguments[index]
                try require(argument.hasPrefix("--"), "argument \(argument.debugDescription) is not a long option")
                let name = argument.dropFirst(2).prefix { $0 != "=" }
                try require(CLIFuzzEntry.isOption(String(name)), "\(argument.debugDescription) names no option")
                try require(!argument.utf8.contains(0), "NUL in \(argument.debugDescription)")
                // An empty value travels as a token of its own, right after its option.
                if !argument.contains("="), index + 1 < arguments.count, arguments[index + 1].isEmpty { index += 1 }
                index += 1
            }
        }
    }
}

/// `--write-out` formats: parsing never fails, rendering is deterministic, text without `%` or
/// `\` renders as itself, and output grows with the format, not beyond it.
enum WriteOutProperty {
    static func check(_ input: [UInt8]) throws(PropertyFailure) {
        let format = text(input)
        let first = CLIFuzzEntry.writeOut(format)
        let second = CLIFuzzEntry.writeOut(format)
        try require(first.text == second.text, "rendering differs between two runs")
        if !format.contains("%") && !format.contains("\\") {
            try require(first.text == format, "plain text \(format.debugDescription) rendered as \(first.text.debugDescription)")
        }
        try require(first.text.utf8.count <= format.utf8.count + first.tokens * 8192,
                    "\(first.text.utf8.count) bytes from a format of \(format.utf8.count) with \(first.tokens) tokens")
    }
}

/// `-i` input lists: each URL line is trimmed, one line, not a comment, numbered in order; a
/// line resolved against `--base` keeps its own scheme (`x://`, `data:`, or any `scheme:` that
/// RFC 3986 reads as absolute) or takes the base's.
enum InputListProperty {
    static let base = "http://example.com/dir/list.txt"

    static func check(_ input: [UInt8]) throws(PropertyFailure) {
        let list = text(input)
        let lines = list.utf8.filter { $0 == 0x0A }.count + 1
        var previous = 0
        for entry in CLIFuzzEntry.inputList(list, base: base) {
            try require(entry.line > previous && entry.line <= lines, "line number \(entry.line) after \(previous) of \(lines)")
            previous = entry.line
            let bytes = Array(entry.text.utf8)
            try require(!bytes.isEmpty && bytes.first != 0x23, "empty or comment entry \(entry.text.debugDescription)")
            try require(!bytes.contains(0x0A), "entry of more than one line")
            for edge in [bytes.first, bytes.last] {
                try require(edge != 0x20 && edge != 0x09 && edge != 0x0D, "untrimmed entry \(entry.text.debugDescription)")
            }
            if let resolved = entry.resolved, resolved != entry.text {
                // The line's own scheme, when it starts with one (RFC 3986 §3.1). Scalars, not
                // Characters: ':' and a combining mark after it are one Character.
                let scalars = entry.text.lowercased().unicodeScalars
                let own = String(String.UnicodeScalarView(scalars.prefix { $0 != ":" }))
                let isScheme = own.unicodeScalars.first.map { $0.properties.isAlphabetic && $0.isASCII } == true
                    && own.unicodeScalars.count < scalars.count
                    && own.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) }
                let lowered = resolved.lowercased()
                try require(lowered.hasPrefix("http:") || (isScheme && lowered.hasPrefix(own + ":")),
                            "\(entry.text.debugDescription) resolved to \(resolved.debugDescription)")
            }
        }
    }
}
