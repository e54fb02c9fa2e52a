import ArgumentParser
import SwgetKit

/// Where files go.
struct DestinationOptions: ParsableArguments {
    @Option(name: [.customShort("O"), .customLong("output-document")],
            help: ArgumentHelp("Write the document to FILE ('-' for standard output), replacing it.", valueName: "FILE"),
            completion: .file())
    var outputDocument: String?

    @Option(name: [.customShort("P"), .customLong("directory-prefix")],
            help: ArgumentHelp("Save files into DIR (created if missing).", valueName: "DIR"),
            completion: .directory)
    var directoryPrefix: String?

    @Flag(name: [.customLong("nc", withSingleDash: true), .customLong("no-clobber")],
          help: "Skip a download whose file already exists instead of choosing a new name.")
    var noClobber = false

    @Flag(name: .customLong("no-content-disposition"), help: "Ignore the Content-Disposition file name.")
    var noContentDisposition = false

    @Flag(name: .customLong("trust-server-names"), help: "Name the file after the last URL of a redirect chain.")
    var trustServerNames = false

    @Flag(name: .customLong("content-on-error"), help: "Save the body of error responses (4xx, 5xx) too.")
    var contentOnError = false

    @Flag(name: [.customShort("c"), .customLong("continue")],
          help: "Continue a partial file another tool left (NAME.part or NAME); swget's own .part files continue without it.")
    var continuePartial = false

    @Option(name: .customLong("start-pos"),
            help: ArgumentHelp("Download from byte OFFSET on (bytes, or with k, M, G), writing it from the start of a new file; wins over -c, never continued.",
                               valueName: "OFFSET"))
    var startPos: String?

    @Flag(name: .customLong("delete-after"), help: "Delete each file once it is downloaded (to warm a proxy cache, or with --write-out).")
    var deleteAfter = false
}

extension DestinationOptions {
    func validate() throws {
        if outputDocument != nil && directoryPrefix != nil && outputDocument != "-" {
            // wget allows it and ignores -P; be explicit instead of surprising.
            throw ValidationError("-O and -P cannot be combined (give -O a path instead)")
        }
        if let startPos, Self.offset(startPos) == nil {
            throw ValidationError("invalid --start-pos '\(DisplayText.sanitize(startPos))': expected bytes, or a number with k, M or G")
        }
    }

    /// Where each download goes.
    var destination: DownloadDestination {
        var destination: DownloadDestination
        switch outputDocument {
        case "-": destination = .standardOutput
        case let path?: destination = .file(path)
        case nil: destination = .directory(directoryPrefix ?? ".")
        }
        destination.collision = noClobber ? .skip : .uniqueName
        destination.useContentDisposition = !noContentDisposition
        destination.trustServerNames = trustServerNames
        destination.continuePartial = continuePartial
        destination.keepsErrorResponses = contentOnError
        destination.startOffset = startPos.flatMap(Self.offset) ?? 0
        // Once for the whole run, where each task would otherwise read the working directory.
        return destination.anchored(at: Terminal.workingDirectory)
    }

    /// A `--start-pos` value: a size, or 0 (wget accepts it: the whole file).
    static func offset(_ text: String) -> Int64? {
        let trimmed = Substring(text).trimmingSpaces
        return !trimmed.isEmpty && trimmed.allSatisfy({ $0 == "0" }) ? 0 : Units.parseSize(text)
    }
}
