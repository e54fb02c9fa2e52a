#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import SwgetKit

/// wget's directory layout, file naming and timestamping options, and the cache and deadline
/// options scripts pass along with them.
struct LayoutOptions: ParsableArguments {
    @Flag(name: [.customShort("x"), .customLong("force-directories")],
          help: "Recreate the URL's directories, host first, under the prefix (host/dir/file).")
    var forceDirectories = false

    @Flag(name: [.customLong("nd", withSingleDash: true), .customLong("no-directories")],
          help: "Never create directories (wins over -x).")
    var noDirectories = false

    @Flag(name: [.customLong("nH", withSingleDash: true), .customLong("no-host-directories")],
          help: "With -x, leave out the host directory.")
    var noHostDirectories = false

    @Flag(name: .customLong("protocol-directories"), help: "With -x, put the scheme first (http/host/dir/file).")
    var protocolDirectories = false

    @Option(name: .customLong("cut-dirs"), help: ArgumentHelp("With -x, leave out the first N directories of the URL's path.", valueName: "N"))
    var cutDirs: Int = 0

    @Option(name: .customLong("default-page"),
            help: ArgumentHelp("The name for a URL ending in '/' when the server names nothing (default index.html).", valueName: "NAME"))
    var defaultPage: String?

    @Option(name: .customLong("restrict-file-names"),
            help: ArgumentHelp("Escape characters of names taken from URLs and Content-Disposition as %XX (wget's modes, comma-separated): unix (/ and control characters, the default), windows (also \\ | : ? \" * < >), nocontrol (keep control characters), ascii (bytes above 127), lowercase, uppercase.",
                               valueName: "MODES"))
    var restrictFileNames: String?

    @Flag(name: [.customShort("E"), .customLong("adjust-extension"), .customLong("html-extension")],
          help: "Add .html to HTML files (and .css to stylesheets) whose names lack it.")
    var adjustExtension = false

    @Flag(name: [.customShort("N"), .customLong("timestamping")],
          help: "Download only when the server's file is newer than the local one or of another size (If-Modified-Since), replacing it.")
    var timestamping = false

    @Flag(name: .customLong("no-if-modified-since"),
          help: "With -N, compare the answer's Last-Modified and length instead of sending If-Modified-Since.")
    var noIfModifiedSince = false

    @Flag(name: .customLong("no-use-server-timestamps"),
          help: "Do not give saved files the server's Last-Modified time (given by default).")
    var noServerTimestamps = false

    @Flag(name: .customLong("remote-time"), help: "Give saved files the server's Last-Modified time (the default; curl's name).")
    var remoteTime = false

    @Flag(name: .customLong("no-cache"), help: "Ask caches on the way for a fresh copy (Cache-Control: no-cache, Pragma: no-cache).")
    var noCache = false

    @Flag(name: .customLong("content-disposition"),
          help: "Name files after Content-Disposition (the default; accepted for wget scripts).")
    var contentDisposition = false

    @Option(name: [.customLong("max-time"), .customLong("deadline")],
            help: ArgumentHelp("Give up on a download that takes longer than SECONDS in all.", valueName: "SECONDS"))
    var maxTime: Double?
}

extension LayoutOptions {
    func validate() throws {
        if cutDirs < 0 { throw ValidationError("--cut-dirs must be 0 or more") }
        if let maxTime, !(maxTime > 0 && maxTime <= 1e9) { throw ValidationError("--max-time must be a positive number of seconds") }
        if let defaultPage, FilenameSanitizer.sanitize(defaultPage) != defaultPage || defaultPage.contains("/") {
            throw ValidationError("--default-page must be a plain file name")
        }
        if let restrictFileNames {
            do {
                _ = try FileNameRestriction(modes: restrictFileNames)
            } catch {
                throw ValidationError("--restrict-file-names: \(DisplayText.sanitize(error.description))")
            }
        }
    }

    /// `--restrict-file-names`, parsed (validated before).
    var restriction: FileNameRestriction? {
        restrictFileNames.flatMap { try? FileNameRestriction(modes: $0) }
    }

    /// The placement of every job's file, from the destination options.
    func placement(_ base: DownloadDestination) -> Placement {
        var destination = base
        destination.setsModificationDate = !noServerTimestamps
        destination.adjustsExtension = adjustExtension
        if let defaultPage { destination.defaultPageName = defaultPage }
        if let restriction, let modes = restrictFileNames {
            // The library names files from Content-Disposition and the URL; wget's escaping
            // decides which of their bytes stay.
            destination.fileNameTransform = FileNameTransform(identifier: "restrict-file-names=" + modes.lowercased()) {
                restriction.escape(element: $0)
            }
        }
        var placement = Placement(base: destination)
        var layout = DirectoryLayout()
        layout.forcesDirectories = forceDirectories && !noDirectories
        layout.hostDirectories = !noHostDirectories
        layout.protocolDirectories = protocolDirectories
        layout.cutDirectories = cutDirs
        if let defaultPage { layout.defaultPage = defaultPage }
        if let restriction { layout.restriction = restriction }
        placement.layout = layout
        placement.timestamping = timestamping
        placement.sendsIfModifiedSince = !noIfModifiedSince
        return placement
    }

    func apply(to configuration: inout SessionConfiguration) {
        if let maxTime { configuration.resourceTimeout = .milliseconds(Int64(maxTime * 1000)) }
    }
}
