import Testing
@testable import SwgetKit

@Suite("DownloadDestination: relative paths anchored once")
struct DownloadDestinationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let target: DownloadDestination.Target
        let workingDirectory: String
        let expected: DownloadDestination.Target
        var testDescription: String { "\(target) in \(workingDirectory.isEmpty ? "(unknown)" : workingDirectory)" }
    }

    static let cases: [Case] = [
        Case(target: .directory("."), workingDirectory: "/w", expected: .directory("/w")),
        Case(target: .directory(""), workingDirectory: "/w", expected: .directory("/w")),
        Case(target: .directory("./out"), workingDirectory: "/w", expected: .directory("/w/out")),
        Case(target: .directory("a/b"), workingDirectory: "/w/", expected: .directory("/w/a/b")),
        Case(target: .directory("../up"), workingDirectory: "/w", expected: .directory("/w/../up")),
        Case(target: .directory("/abs"), workingDirectory: "/w", expected: .directory("/abs")),
        Case(target: .file("name.bin"), workingDirectory: "/w", expected: .file("/w/name.bin")),
        Case(target: .file("/dev/null"), workingDirectory: "/w", expected: .file("/dev/null")),
        // An unknown working directory (getcwd failed) leaves the path to the task.
        Case(target: .directory("out"), workingDirectory: "", expected: .directory("out")),
        Case(target: .standardOutput, workingDirectory: "/w", expected: .standardOutput),
    ]

    @Test(arguments: cases) func anchoring(_ row: Case) {
        var destination = DownloadDestination(row.target)
        destination.collision = .skip
        let anchored = destination.anchored(at: row.workingDirectory)
        #expect(anchored.target == row.expected)
        #expect(anchored.collision == .skip, "the other settings are kept")
        #expect(anchored.isAnchored == (row.workingDirectory.isEmpty ? !Self.isRelative(row.target) : true))
    }

    /// A task anchors a relative destination itself, and leaves an anchored one as it is.
    @Test func aTaskAnchorsWhatTheCallerDidNot() {
        #expect(DownloadTask.absolute(.directory("/abs")) == .directory("/abs"))
        guard case .directory(let path) = DownloadTask.absolute(.directory("out")).target else {
            Issue.record("not a directory")
            return
        }
        #expect(path.hasPrefix("/") && path.hasSuffix("/out"))
    }

    static func isRelative(_ target: DownloadDestination.Target) -> Bool {
        switch target {
        case .directory(let path), .file(let path): !path.hasPrefix("/")
        case .standardOutput: false
        }
    }
}
