import Foundation
import Testing
import SwgetKit
@testable import SwgetCLI

@Suite("Configuration hooked to the command line")
struct ConfigArgumentsTests {
    /// A fake file system: path → text (nil: exists but cannot be read).
    static func environment(_ files: [String: String?], variables: [String: String] = ["HOME": "/home/u"]) -> ConfigArguments.Environment {
        ConfigArguments.Environment(variables: variables,
                                    read: { path in files[path] ?? nil },
                                    exists: { files.keys.contains($0) },
                                    options: { CommandOptions.table })
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let files: [String: String?]
        let arguments: [String]
        let expanded: [String]
        var testDescription: String { arguments.joined(separator: " ") }
    }

    @Test(arguments: [
        Case(files: [:], arguments: ["http://h/"], expanded: ["http://h/"]),
        Case(files: ["/home/u/.swgetrc": "tries = 5\n"], arguments: ["u"], expanded: ["--tries=5", "u"]),
        Case(files: ["/home/u/.config/swget/config": "parallel = 8", "/home/u/.swgetrc": "tries = 5"], arguments: ["u"],
             expanded: ["--parallel=8", "u"]),
        Case(files: ["/home/u/.swgetrc": "tries = 5"], arguments: ["--no-config", "u"], expanded: ["--no-config", "u"]),
        Case(files: ["/etc/rc": "no-check-certificate = on"], arguments: ["--config", "/etc/rc", "u"],
             expanded: ["--no-check-certificate", "--config", "/etc/rc", "u"]),
        Case(files: ["/home/u/.swgetrc": "tries = 5"], arguments: ["-e", "use_proxy=off", "-e", "robots=off", "u"],
             expanded: ["--tries=5", "--no-proxy", "-e", "use_proxy=off", "-e", "robots=off", "u"]),
        Case(files: [:], arguments: ["--header", "-e", "u"], expanded: ["--header", "-e", "u"]),
        Case(files: [:], arguments: ["-e", "wait = 2", "-e", "save_headers = on", "u"],
             expanded: ["--wait=2", "--save-headers", "-e", "wait = 2", "-e", "save_headers = on", "u"]),
    ])
    func expand(_ c: Case) throws {
        #expect(try ConfigArguments.expand(c.arguments, in: Self.environment(c.files)) == c.expanded)
    }

    @Test func errorsNameTheFileAndLine() {
        #expect(throws: ConfigFile.ParseError(source: "/home/u/.swgetrc", line: 2, reason: "unknown option 'nonsense'")) {
            try ConfigArguments.expand(["u"], in: Self.environment(["/home/u/.swgetrc": "tries = 1\nnonsense = 2\n"]))
        }
        #expect(throws: ConfigFile.ParseError(source: "/missing", line: nil, reason: "cannot read the configuration file")) {
            try ConfigArguments.expand(["--config=/missing", "u"], in: Self.environment([:]))
        }
        #expect(throws: ConfigFile.ParseError(source: "/home/u/.swgetrc", line: nil, reason: "cannot read the configuration file")) {
            try ConfigArguments.expand(["u"], in: Self.environment(["/home/u/.swgetrc": Optional<String>.none]))
        }
        #expect(throws: ConfigFile.ParseError(source: "-e 'execute=x'", line: nil, reason: "'execute' cannot be set here")) {
            try ConfigArguments.expand(["-e", "execute=x", "u"], in: Self.environment([:]))
        }
    }

    @Test func theCommandsOptionsAreKnown() throws {
        let options = CommandOptions.options(fromDump: SwgetCommand._dumpHelp())
        let byName = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byName["tries"] == ConfigFile.Option("tries", takesValue: true, shortName: "t"))
        #expect(byName["quiet"] == ConfigFile.Option("quiet", takesValue: false, shortName: "q"))
        #expect(byName["no-proxy"]?.takesValue == false)
        #expect(byName["header"]?.takesValue == true)
        #expect(byName["execute"] == ConfigFile.Option("execute", takesValue: true, shortName: "e"))
        #expect(byName["split"]?.shortName == nil)
        #expect(byName["force-directories"]?.shortName == "x")
        #expect(byName["save-headers"]?.shortName == "s")
        #expect(byName["nv"] == nil, "a single-dash name is not a --name")
    }
}

@Suite("-d lines: secrets masked")
struct DebugTextTests {
    @Test func requestHeadsMaskCredentials() {
        let headers: HeaderFields = [
            "Host": "example.com",
            "Authorization": "Basic YWxpY2U6c2VjcmV0",
            "proxy-authorization": "Basic cDpx",
            "Cookie": "session=abc",
            "Referer": "http://bob:pw@example.com/\u{1B}[2J",
        ]
        let text = Reporter.requestText(method: "GET", target: "http://alice:s3cret@example.com/a", version: "HTTP/1.1", headers: headers)
        #expect(text == """
            ---request begin---
            GET http://alice:***@example.com/a HTTP/1.1
            Host: example.com
            Authorization: ***
            proxy-authorization: ***
            Cookie: ***
            Referer: http://bob:***@example.com/\\x1B[2J
            ---request end---
            """)
    }

    @Test func connections() {
        #expect(Reporter.debugText(.connected(host: "example.com", port: 443, remoteAddress: "93.184.216.34", proxy: nil))
                == "Connected to example.com:443 (93.184.216.34).")
        #expect(Reporter.debugText(.connected(host: "::1", port: 80, remoteAddress: nil, proxy: "http://u:pw@p:3128"))
                == "Connected to [::1]:80 through proxy http://u:***@p:3128.")
        #expect(Reporter.debugText(.reusingConnection(host: "h", port: 8080)) == "Reusing the connection to h:8080.")
    }
}

@Suite("--wait pacing, --save-headers block, --progress=json summary")
struct OutputCompatPureTests {
    struct PacingCase: Sendable, CustomTestStringConvertible {
        let previous: Int, now: Int, wait: Int, parallel: Int, start: Int
        var testDescription: String { "prev \(previous) now \(now) wait \(wait) -j \(parallel) -> \(start)" }
    }

    @Test(arguments: [
        // One at a time: the wait follows the end of the previous download, however long it took.
        PacingCase(previous: 0, now: 5, wait: 2, parallel: 1, start: 7),
        PacingCase(previous: 0, now: 0, wait: 2, parallel: 1, start: 2),
        // Several at once: starts are spaced by the wait, never in the past.
        PacingCase(previous: 10, now: 10, wait: 2, parallel: 4, start: 12),
        PacingCase(previous: 10, now: 11, wait: 2, parallel: 4, start: 12),
        PacingCase(previous: 10, now: 20, wait: 2, parallel: 4, start: 20),
        PacingCase(previous: 10, now: 10, wait: 0, parallel: 4, start: 10),
    ])
    func pacing(_ c: PacingCase) {
        let zero = ContinuousClock.now
        let start = Batch.Pacing.start(after: zero + .seconds(c.previous), now: zero + .seconds(c.now), wait: .seconds(c.wait),
                                       parallel: c.parallel)
        #expect(start == zero + .seconds(c.start))
    }

    @Test func randomWaitStaysBetweenHalfAndOneAndAHalf() {
        let pacing = Batch.Pacing(wait: .seconds(2), random: true)
        for _ in 0..<200 {
            let wait = pacing.next()
            #expect(wait >= .seconds(1) && wait <= .seconds(3))
        }
        #expect(Batch.Pacing(wait: .seconds(2)).next() == .seconds(2))
    }

    @Test func headerBlock() throws {
        let url = try #require(URL(string: "http://h/a"))
        let response = Response(url: url, statusCode: 200, reasonPhrase: "OK", httpVersion: "HTTP/1.1",
                                headers: ["Content-Length": "3", "ETag": "\"x\""], expectedContentLength: 3)
        #expect(SaveHeaders.block(response) == Array("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nETag: \"x\"\r\n\r\n".utf8))
    }

    @Test func prependKeepsModeAndTimes() throws {
        let dir = try makeScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/f.bin"
        let body = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(body).write(to: URL(fileURLWithPath: path))
        let old = Date(timeIntervalSince1970: 1_000_000_000)
        try FileManager.default.setAttributes([.modificationDate: old, .posixPermissions: 0o640], ofItemAtPath: path)
        try SaveHeaders.prepend(Array("HEAD\r\n\r\n".utf8), to: path)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == Array("HEAD\r\n\r\n".utf8) + body)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.modificationDate] as? Date == old)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["f.bin"])
    }

    @Test func summaryEvent() {
        let line = ProgressEvent.summary(files: 3, succeeded: 2, failed: 1, skipped: 0, bytes: 2048, seconds: 1.25, exitCode: 8).jsonLine()
        #expect(line == #"{"event":"summary","files":3,"succeeded":2,"failed":1,"skipped":0,"bytes":2048,"seconds":1.25,"exitCode":8}"# + "\n")
    }

    @Test(arguments: [("HTTP/1.1", "1.1"), ("HTTP/1.0", "1.0"), ("HTTP/2.0", "2"), ("HTTP/2", "2"), ("FTP", nil)] as [(String, String?)])
    func httpVersion(_ text: String, _ expected: String?) {
        #expect(WriteOutValues.version(text) == expected)
    }

    private func makeScratch() throws -> String {
        let dir = NSTemporaryDirectory() + "swget-savehead-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}
