import Foundation
import SwgetFuzzChecks
import SwgetTestSupport
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

    /// no_proxy against its reference formulation, beyond the corpus: 20,000 lists and hosts
    /// drawn (seeded) from the pieces the rule turns on (labels that repeat, leading `.` and
    /// `*.`, trailing dots, IPv4 with prefixes and ports, leading zeros, upper case), fed to the
    /// fuzz target's property exactly as libFuzzer's bytes would be.
    @Test func noProxyAgreesWithItsReferenceOnSeededInputs() {
        var random = SplitMix64(seed: 20_261_127)
        let labels = ["a", "b", "example", "com", "x-1", "EXAMPLE", "0", "10", "127", "255", "256", "01", ""]
        let prefixes = ["", ".", "*.", "..", "*"]
        let suffixes = ["", ".", "/8", "/24", "/32", "/0", "/33", ":80", ":8080", ":0", "/16:80", ":"]
        func name() -> String {
            (0..<Int.random(in: 1...4, using: &random)).map { _ in labels.randomElement(using: &random) ?? "" }.joined(separator: ".")
        }
        func quad() -> String {
            (0..<4).map { _ in ["0", "1", "10", "127", "255", "256", "01", "192", "168"].randomElement(using: &random) ?? "0" }
                .joined(separator: ".")
        }
        var failures = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...4, using: &random)
            let list = (0..<count).map { _ in
                (prefixes.randomElement(using: &random) ?? "") + (Bool.random(using: &random) ? name() : quad())
                    + (suffixes.randomElement(using: &random) ?? "")
            }.joined(separator: [",", " ", ", ", "\t"].randomElement(using: &random) ?? ",")
            let host = (Bool.random(using: &random) ? name() : quad()) + (Int.random(in: 0...5, using: &random) == 0 ? "." : "")
            let port = [80, 443, 8080, 0, 1].randomElement(using: &random) ?? 80
            let input = [UInt8(port >> 8), UInt8(port & 0xFF)] + Array("-\n\(list)\n\(host)".utf8)
            do {
                try FuzzTarget.proxy.check(input)
            } catch {
                failures += 1
                if failures <= 5 { Issue.record("\(error)") }
            }
        }
        #expect(failures == 0)
    }
}
