import Foundation
import SwgetTestSupport

/// One run of the swget command as `SwgetAllocationProbe` (the same entry point, ordo-one's
/// malloc interposer preloaded) in `directory`: its result and the report it writes at exit
/// (`mallocs=N bytes=N peak_kb=N`, as numbers by name). Shared by the allocation gate and the
/// hostile-input bounds.
enum ProbeRun {
    static func run(_ arguments: [String], in directory: String,
                    timeout: Duration) async throws -> (result: SwgetResult, report: [String: Int]) {
        let binaries = (SwgetProcess.binaryPath as NSString).deletingLastPathComponent
        let path = directory + "/.probe-report"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await SwgetProcess.run(
            executable: binaries + "/SwgetAllocationProbe", arguments, in: directory,
            environment: ["LD_PRELOAD": binaries + "/libMallocInterposerSwift.so", "SWGET_ALLOCATION_REPORT": path],
            timeout: timeout)
        let line = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        var report: [String: Int] = [:]
        for field in line.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Int(parts[1]) { report[String(parts[0])] = value }
        }
        return (result, report)
    }
}
