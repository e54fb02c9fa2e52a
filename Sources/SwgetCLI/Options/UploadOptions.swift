import ArgumentParser
import SwgetKit

/// Uploads and request methods: wget's `--method`, `--body-*` and `--post-*`, curl's
/// `--request`, `--data` family, `--form`, `--upload-file` and `--json` (long names only: their
/// short letters mean something else in wget). The rules that combine them are
/// ``BodyArguments``'s; the body is read and checked by ``PreparedBody`` before any connection.
///
/// Every value is taken as it comes, even when it starts with `-` (`--data -x`, `--upload-file -`),
/// as curl does.
struct UploadOptions: ParsableArguments {
    @Option(name: .customLong("method"), parsing: .unconditional,
            help: ArgumentHelp("Use METHOD (upper-cased, as wget does): DELETE, PUT, PATCH...", valueName: "METHOD"))
    var method: String?

    @Option(name: .customLong("request"), parsing: .unconditional,
            help: ArgumentHelp("Use METHOD exactly as given (curl's -X).", valueName: "METHOD"))
    var request: String?

    @Option(name: .customLong("post-data"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("POST STRING as application/x-www-form-urlencoded (wget).", valueName: "STRING"))
    var postData: [String] = []

    @Option(name: .customLong("post-file"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("POST the contents of FILE as application/x-www-form-urlencoded (wget).", valueName: "FILE"),
            completion: .file())
    var postFile: [String] = []

    @Option(name: .customLong("body-data"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("Send STRING as the body of the --method request (wget).", valueName: "STRING"))
    var bodyData: [String] = []

    @Option(name: .customLong("body-file"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("Send the contents of FILE as the body of the --method request (wget).", valueName: "FILE"),
            completion: .file())
    var bodyFile: [String] = []

    @Option(name: [.customLong("data"), .customLong("data-ascii")], parsing: .unconditionalSingleValue,
            help: ArgumentHelp("POST DATA as a form (curl's -d): repeats join with &; @FILE reads a file without its newlines, @- standard input.",
                               valueName: "DATA"))
    var data: [String] = []

    @Option(name: .customLong("data-binary"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("POST DATA as --data does, but @FILE is sent exactly as it is (a lone @FILE streams from disk).",
                               valueName: "DATA"))
    var dataBinary: [String] = []

    @Option(name: .customLong("data-raw"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("POST DATA as --data does, with no special meaning for @.", valueName: "DATA"))
    var dataRaw: [String] = []

    @Option(name: .customLong("data-urlencode"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("POST DATA URL-encoded (curl's forms: content, =content, name=content, @file, name@file).",
                               valueName: "DATA"))
    var dataURLEncode: [String] = []

    @Option(name: .customLong("json"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("POST DATA as JSON (Content-Type and Accept application/json); repeats are joined as they are.",
                               valueName: "DATA"))
    var json: [String] = []

    @Option(name: .customLong("form"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("Add a multipart/form-data field (curl's -F): name=value, name=@FILE[;type=TYPE][;filename=NAME], name=<FILE.",
                               valueName: "FIELD"))
    var form: [String] = []

    @Option(name: .customLong("form-string"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("Add a multipart/form-data field whose value is taken literally (no @, < or ;).", valueName: "FIELD"))
    var formString: [String] = []

    @Option(name: .customLong("upload-file"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("PUT FILE (- for standard input); a URL ending in / gets the file's name (curl's -T).",
                               valueName: "FILE"), completion: .file())
    var uploadFile: [String] = []
}

extension UploadOptions {
    /// The body and method options as ``BodyArguments`` (the body options in command-line order
    /// as far as `commandLine` tells it), with `spider` asking for a HEAD request.
    func arguments(commandLine: [String], spider: Bool) -> BodyArguments {
        BodyArguments(arguments: orderedArguments(commandLine: commandLine), request: request, method: method, head: spider)
    }

    /// Checks the combination: a usage error (exit 2) when it cannot be honoured.
    func plan(commandLine: [String], spider: Bool) throws -> BodyPlan {
        do {
            return try arguments(commandLine: commandLine, spider: spider).plan()
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Each option's long names with the body argument it makes.
    private var kinds: [(names: [String], values: [String], make: (String) -> BodyArgument)] {
        [(["--data", "--data-ascii"], data, BodyArgument.data),
         (["--data-binary"], dataBinary, BodyArgument.dataBinary),
         (["--data-raw"], dataRaw, BodyArgument.dataRaw),
         (["--data-urlencode"], dataURLEncode, BodyArgument.dataURLEncode),
         (["--json"], json, BodyArgument.json),
         (["--form"], form, BodyArgument.form),
         (["--form-string"], formString, BodyArgument.formString),
         (["--upload-file"], uploadFile, BodyArgument.uploadFile),
         (["--post-data"], postData, BodyArgument.postData),
         (["--post-file"], postFile, BodyArgument.postFile),
         (["--body-data"], bodyData, BodyArgument.bodyData),
         (["--body-file"], bodyFile, BodyArgument.bodyFile)]
    }

    /// The body options in the order they were typed. ArgumentParser keeps each option's values
    /// in order but not the order across options, which curl's joining (`-d a --json b` is not
    /// `--json b -d a`) and multipart forms need: `commandLine` is scanned for the options'
    /// names. When the scan does not account for every value (the arguments did not come from
    /// `commandLine`), the options follow in declaration order instead.
    func orderedArguments(commandLine: [String]) -> [BodyArgument] {
        let kinds = self.kinds
        let sequence = Self.optionSequence(in: commandLine, names: kinds.map(\.names))
        let counted = kinds.indices.allSatisfy { index in sequence.count(where: { $0 == index }) == kinds[index].values.count }
        let order = counted ? sequence : kinds.indices.flatMap { Array(repeating: $0, count: kinds[$0].values.count) }
        var next = Array(repeating: 0, count: kinds.count)
        return order.map { index in
            defer { next[index] += 1 }
            return kinds[index].make(kinds[index].values[next[index]])
        }
    }

    /// Which of `names` (groups of spellings) occur as options in `arguments`, in order: `--name`
    /// or `--name=value`; the value after a `--name` is skipped (these options take the next
    /// argument unconditionally); scanning stops at `--`.
    static func optionSequence(in arguments: [String], names: [[String]]) -> [Int] {
        var sequence: [Int] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { break }
            guard argument.hasPrefix("--") else { continue }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            guard let kind = names.firstIndex(where: { $0.contains(name) }) else { continue }
            sequence.append(kind)
            if !argument.contains("=") { index += 1 }
        }
        return sequence
    }
}
