import Foundation
import Testing
@testable import SwgetCLI
import SwgetKit
import SwgetTestSupport

/// The reporter keeps a transfer's progress only while the transfer runs, and not at all when
/// nothing would show it: a batch of any length holds a bounded table.
@Suite("Reporter bookkeeping")
struct ReporterBookkeepingTests {
    static func download(_ count: Int, with reporter: Reporter) async throws -> [SessionError?] {
        let server = try await TestServer.start { _ in .ok([UInt8](repeating: 0x61, count: 2_000)) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swget-reporter-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let session = Session(delegate: reporter, threading: .eventLoop)
        var outcomes: [SessionError?] = []
        for index in 0..<count {
            guard let request = Request(string: server.baseURL + "/f\(index).bin") else { continue }
            outcomes.append(await session.downloadTask(with: request, destination: .directory(directory)).outcome())
        }
        try await server.stop()
        return outcomes
    }

    @Test(arguments: [(Reporter.Verbosity.quiet, Reporter.Indicator.none), (.brief, .none), (.quiet, .json)])
    func nothingIsHeldOnceTheTasksEnded(_ verbosity: Reporter.Verbosity, _ indicator: Reporter.Indicator) async throws {
        var options = Reporter.Options()
        options.verbosity = verbosity
        options.indicator = indicator
        let reporter = Reporter(options: options)
        let outcomes = try await Self.download(5, with: reporter)
        #expect(outcomes.count == 5 && outcomes.allSatisfy { $0 == nil })
        #expect(reporter.heldTransfers == 0)
    }

    /// `--https-only` remembers a refused redirect until the task's failure is reported.
    @Test func aRefusedRedirectIsForgottenOnceReported() async throws {
        var options = Reporter.Options()
        options.httpsOnly = true
        let reporter = Reporter(options: options)
        let session = Session(delegate: reporter, threading: .eventLoop)
        let original = try #require(Request(string: "https://example.invalid/a"))
        let target = try #require(Request(string: "http://example.invalid/b"))
        let task = session.dataTask(with: original)
        let redirect = Response(url: original.url, statusCode: 301, headers: ["Location": "http://example.invalid/b"],
                                expectedContentLength: nil)
        #expect(await reporter.task(task, willPerformRedirection: redirect, newRequest: target) == .refuse)
        #expect(await reporter.task(task, didReceive: redirect) == .cancel)
        #expect(reporter.heldRefusals == 1)
        #expect(reporter.takeRefusal(for: task) == "redirect to http:// " + Reporter.httpsOnlyRefusal)
        #expect(reporter.takeRefusal(for: task) == nil)
        #expect(reporter.heldRefusals == 0)
    }
}
