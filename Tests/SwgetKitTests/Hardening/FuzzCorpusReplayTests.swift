import Foundation
import SwgetFuzzChecks
import Testing

/// Every committed fuzz input (`Fuzz/Corpus/TARGET/`: the seeds and every finding once fixed)
/// through its target's property, without libFuzzer: the same code the fuzzers run
/// (SwgetFuzzChecks), so a finding stays a regression input of the ordinary `swift test`.
@Suite("Fuzz corpus replay")
struct FuzzCorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    static func inputs(of target: FuzzTarget) throws -> [URL] {
        let folder = corpus.appendingPathComponent(target.rawValue)
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test(arguments: FuzzTarget.allCases)
    func corpusHoldsItsProperty(_ target: FuzzTarget) throws {
        let files = try Self.inputs(of: target)
        #expect(!files.isEmpty, "no inputs for \(target.rawValue)")
        for file in files {
            let input = try [UInt8](Data(contentsOf: file))
            do {
                try target.check(input)
            } catch {
                Issue.record("\(target.rawValue)/\(file.lastPathComponent): \(error)")
            }
        }
    }

    /// A corpus folder without a target (a renamed or removed fuzzer) would be silently skipped.
    @Test func everyCorpusFolderHasATarget() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter { !$0.hasPrefix(".") }
        #expect(Set(folders) == Set(FuzzTarget.allCases.map(\.rawValue)))
    }
}
