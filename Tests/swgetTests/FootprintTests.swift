import Foundation
import Testing
import SwgetTestSupport

/// What the swget binary loads. SwgetKit and SwgetCLI use FoundationEssentials only: one bare
/// `import Foundation` links libFoundation, FoundationInternationalization and ICU into the
/// command, which costs every run about 6 MB of resident memory and 4 ms of start-up (the
/// runtime scans their protocol conformances at each uncached cast, and the argument parser
/// makes hundreds). Checked on the debug build the suite runs, which links dynamically.
@Suite("Binary footprint")
struct FootprintTests {
    @Test func theCommandDoesNotLinkFullFoundation() throws {
        let ldd = Process()
        ldd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        ldd.arguments = [SwgetProcess.binaryPath]
        let output = Pipe()
        ldd.standardOutput = output
        ldd.standardError = FileHandle.nullDevice
        try ldd.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ldd.waitUntilExit()
        #expect(ldd.terminationStatus == 0, "\(text)")
        #expect(text.contains("libswiftCore"), "not a dynamically linked Swift binary? \(text)")
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!text.contains(library), "swget links \(library): an unguarded `import Foundation` in Sources/?")
        }
    }
}
