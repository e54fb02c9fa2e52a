import Foundation
import Testing

/// What the swget binary links. SwgetKit and SwgetCLI use FoundationEssentials only: one bare
/// `import Foundation` in them links libFoundation, FoundationInternationalization and ICU into
/// the release command, which costs every run about 6 MB of resident memory and 4 ms of
/// start-up (the runtime scans their protocol conformances at each uncached cast, and the
/// argument parser makes hundreds). The check reads the sources: the debug binary the suite
/// builds links full Foundation anyway (dependencies' unused conveniences are not stripped).
@Suite("Binary footprint")
struct FootprintTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The files of the command's own targets that import Foundation outside the
    /// `#if canImport(FoundationEssentials) … #else` guard.
    static func unguardedImports() throws -> [String] {
        var found: [String] = []
        for target in ["SwgetKit", "SwgetCLI", "swget"] {
            let directory = packageRoot.appendingPathComponent("Sources/\(target)")
            guard let files = FileManager.default.enumerator(atPath: directory.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                var guarded = false
                for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix("#if canImport(FoundationEssentials)") { guarded = true }
                    if line.hasPrefix("#endif") { guarded = false }
                    if !guarded && (line == "import Foundation" || line.hasPrefix("import Foundation ")
                                    || line.hasPrefix("@preconcurrency import Foundation")) {
                        found.append("\(target)/\(file)")
                    }
                }
            }
        }
        return found
    }

    @Test func theCommandsTargetsImportFoundationEssentialsOnly() throws {
        let found = try Self.unguardedImports()
        #expect(found.isEmpty, "import FoundationEssentials (with `#if canImport(FoundationEssentials)`) instead: \(found)")
        // Not vacuous: the sources are where the check looks.
        #expect(FileManager.default.fileExists(atPath: Self.packageRoot.appendingPathComponent("Sources/SwgetKit").path))
    }
}
