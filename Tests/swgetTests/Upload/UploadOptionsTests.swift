#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import Testing
import SwgetKit
import SwgetTestSupport
@testable import SwgetCLI

/// The upload option group: values that start with `-`, the command-line order of the body
/// options (curl joins `--data` pieces and builds forms in that order), and the body prepared
/// before any connection (files read or opened, exit statuses for what cannot be).
@Suite("Upload options and body preparation")
struct UploadOptionsTests {
    static func parse(_ arguments: [String]) throws -> UploadOptions {
        try UploadOptions.parse(arguments)
    }

    struct OrderCase: Sendable, CustomTestStringConvertible {
        let name: String
        let arguments: [String]
        let expected: [BodyArgument]
        var testDescription: String { name }
    }

    static let orders: [OrderCase] = [
        OrderCase(name: "interleaved data family", arguments: ["--data-urlencode", "q=a b", "--data", "x", "--json", "{}", "--data=y"],
                  expected: [.dataURLEncode("q=a b"), .data("x"), .json("{}"), .data("y")]),
        OrderCase(name: "--data-ascii is --data", arguments: ["--data-ascii", "a", "--data-binary", "@f"],
                  expected: [.data("a"), .dataBinary("@f")]),
        OrderCase(name: "form fields keep their order", arguments: ["--form", "a=1", "--form-string", "b=@2", "--form", "c=@f"],
                  expected: [.form("a=1"), .formString("b=@2"), .form("c=@f")]),
        OrderCase(name: "values that look like options", arguments: ["--data", "--json", "--data-raw", "-x", "--upload-file", "-"],
                  expected: [.data("--json"), .dataRaw("-x"), .uploadFile("-")]),
        OrderCase(name: "other options between", arguments: ["--method", "PUT", "--body-data", "x"], expected: [.bodyData("x")]),
    ]

    @Test(arguments: orders)
    func commandLineOrder(_ c: OrderCase) throws {
        let options = try Self.parse(c.arguments)
        #expect(options.orderedArguments(commandLine: c.arguments) == c.expected)
    }

    @Test("without the command line, options come in declaration order, values in their own order")
    func fallbackOrder() throws {
        let options = try Self.parse(["--json", "{}", "--data", "a", "--data", "b"])
        #expect(options.orderedArguments(commandLine: []) == [.data("a"), .data("b"), .json("{}")])
        #expect(options.orderedArguments(commandLine: ["--data", "a"]) == [.data("a"), .data("b"), .json("{}")])
    }

    @Test("the scan stops at -- and skips each option's value")
    func scan() {
        let names = [["--data", "--data-ascii"], ["--json"]]
        #expect(UploadOptions.optionSequence(in: ["--data", "--json", "--json=1", "u", "--", "--data", "x"], names: names) == [0, 1])
        #expect(UploadOptions.optionSequence(in: ["--data-ascii=a", "--dataX", "y", "--json", "b"], names: names) == [0, 1])
    }

    @Test("conflicts and bad methods are usage errors; --spider asks for HEAD")
    func usageErrors() throws {
        let conflict = try Self.parse(["--data", "x", "--upload-file", "f"])
        #expect(throws: ValidationError.self) { try conflict.plan(commandLine: [], spider: false) }
        let spiderBody = try Self.parse(["--post-data", "x"])
        #expect(throws: ValidationError.self) { try spiderBody.plan(commandLine: [], spider: true) }
        #expect(try Self.parse([]).plan(commandLine: [], spider: true).method == "HEAD")
        #expect(try Self.parse(["--method", "patch"]).plan(commandLine: [], spider: false).method == "PATCH")
    }

    // MARK: - preparing the body

    /// The body `arguments` make (paths in them are absolute: tests never change directory).
    static func prepare(_ arguments: [String], standardInput: Int32 = -1) throws -> PreparedBody {
        let plan = try parse(arguments).plan(commandLine: arguments, spider: false)
        return try PreparedBody(plan, standardInput: standardInput)
    }

    static func failure(_ arguments: [String]) -> PreparedBody.Failure? {
        do {
            _ = try prepare(arguments)
            return nil
        } catch let failure as PreparedBody.Failure {
            return failure
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test("data pieces are read and joined now; lone files stay files; forms keep file parts")
    func bodies() throws {
        let dir = try makeTemporaryDirectory()
        try Data("line1\nline2\n".utf8).write(to: URL(fileURLWithPath: dir + "/t.txt"))
        let t = dir + "/t.txt"
        let joined = try Self.prepare(["--data", "@" + t, "--data-urlencode", "n@" + t, "--data-raw", "@x"])
        #expect(joined.method == "POST")
        #expect(joined.body == .data(Array("line1line2&n=line1%0Aline2%0A&@x".utf8)))
        #expect(joined.defaultHeaders == [BodyPlan.Header(name: "Content-Type", value: "application/x-www-form-urlencoded")])

        let file = try Self.prepare(["--upload-file", t])
        #expect(file.method == "PUT" && file.body == .file(path: t) && file.uploadPath == t)
        #expect(!file.isSingleUse)

        let form = try Self.prepare(["--form", "a=1", "--form", "f=@\(t);type=text/x"])
        guard case .multipart(let multipart)? = form.body else {
            Issue.record("not a form: \(String(describing: form.body))")
            return
        }
        #expect(multipart.parts.count == 2)
        #expect(multipart.parts.last?.filename == "t.txt")
        #expect(multipart.parts.last?.contentType == "text/x")

        var request = try #require(Request(string: "http://h/p"))
        request.headers.set("content-type", "text/plain")
        joined.apply(to: &request)
        #expect(request.method == "POST")
        #expect(request.headers.values(for: "Content-Type") == ["text/plain"])
    }

    @Test("standard input: read whole for --data @-, streamed once for --upload-file -")
    func standardInput() async throws {
        let dir = try makeTemporaryDirectory()
        try Data("a\nb".utf8).write(to: URL(fileURLWithPath: dir + "/in.txt"))
        let descriptor = open(dir + "/in.txt", O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let read = try Self.prepare(["--data", "@-"], standardInput: descriptor)
        #expect(read.body == .data(Array("ab".utf8)))
        #expect(lseek(descriptor, 0, SEEK_SET) == 0)
        let streamed = try Self.prepare(["--upload-file", "-"], standardInput: descriptor)
        #expect(streamed.isSingleUse)
        guard case .stream(let stream)? = streamed.body else {
            Issue.record("not a stream")
            return
        }
        #expect(stream.length == 3)
        var bytes: [UInt8] = []
        for try await chunk in try #require(stream.makeStream()) { bytes += chunk }
        #expect(bytes == Array("a\nb".utf8))
    }

    @Test("a pipe given as a file streams once instead of being refused")
    func specialFile() throws {
        let dir = try makeTemporaryDirectory()
        try #require(mkfifo(dir + "/fifo", 0o600) == 0)
        // Opening a FIFO for reading blocks until a writer comes: open one without blocking first.
        let writer = open(dir + "/fifo", O_RDWR | O_NONBLOCK | O_CLOEXEC)
        try #require(writer >= 0)
        defer { close(writer) }
        let prepared = try Self.prepare(["--upload-file", dir + "/fifo"])
        #expect(prepared.isSingleUse)
        #expect(prepared.uploadPath == dir + "/fifo")
    }

    @Test("unreadable files stop the run with exit 3; a form SwgetKit refuses with exit 2")
    func failures() throws {
        let dir = try makeTemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
        let missing = dir + "/missing.bin", sub = dir + "/sub"
        for arguments in [["--upload-file", missing], ["--post-file", missing], ["--data-binary", "@" + missing],
                          ["--data", "@" + missing], ["--form", "f=@" + missing], ["--upload-file", sub],
                          ["--method", "PUT", "--body-file", sub]] {
            let failure = Self.failure(arguments)
            #expect(failure?.status == .fileIO, "\(arguments)")
            let named = arguments.last?.hasSuffix("sub") == true ? sub : missing
            #expect(failure?.description.contains(named) == true, "\(arguments): \(failure?.description ?? "")")
        }
        let tooLong = Self.failure(["--form", String(repeating: "n", count: 70_000) + "=1"])
        #expect(tooLong?.status == .usage, "\(tooLong?.description ?? "nil")")
    }
}
