#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The command line's own parsers of text someone else may have written, for the fuzz targets
/// of `Fuzz/` (through `SwgetFuzzChecks`): configuration files, `--write-out` formats and `-i`
/// input lists. Each function calls the production code and returns plain values. Not an API for
/// programs (like `SwgetKit.FuzzEntry`).
public enum CLIFuzzEntry {
    /// The command's real option table, built once.
    private static let options = CommandOptions.table

    /// A configuration file's text as the arguments it stands for, or the one-line error.
    public static func configArguments(_ text: String) -> Result<[String], ConfigFile.ParseError> {
        Result { () throws(ConfigFile.ParseError) in try ConfigFile.arguments(parsing: text, source: "rc", options: options) }
    }

    /// Whether `name` (without dashes) is a long option of the command.
    public static func isOption(_ name: String) -> Bool { options.option(forKey: name) != nil }

    /// A `--write-out` format rendered for a fixed transfer (every value set, two headers).
    public static func writeOut(_ format: String) -> (text: String, tokens: Int) {
        let parsed = WriteOutFormat(parsing: format)
        var values = WriteOutValues()
        values.httpCode = 200
        values.url = "http://example.com/a"
        values.urlEffective = "http://example.com/b"
        values.filenameEffective = "b"
        values.sizeDownload = 1234
        values.headers = [.init(name: "Content-Type", value: "text/plain"), .init(name: "ETag", value: "\"x\"")]
        return (parsed.renderedText(values), parsed.tokens.count)
    }

    /// An input list's URL lines (line number and text), each resolved against `base`.
    public static func inputList(_ text: String, base: String) -> [(line: Int, text: String, resolved: String?)] {
        let baseURL = InputList.baseURL(base)
        return InputList.entries(text).map { entry in (entry.line, entry.text, InputList.resolve(entry.text, base: baseURL)) }
    }
}
