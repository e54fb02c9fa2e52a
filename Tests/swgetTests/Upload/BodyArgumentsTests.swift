import Testing
import SwgetKit
@testable import SwgetCLI

@Suite("Body options: curl --data/--form/--upload-file, wget --post-*/--body-*, methods")
struct BodyArgumentsTests {
    typealias A = BodyArgument
    static let urlencoded = [BodyPlan.Header(name: "Content-Type", value: "application/x-www-form-urlencoded")]
    static let json = [BodyPlan.Header(name: "Content-Type", value: "application/json"), BodyPlan.Header(name: "Accept", value: "application/json")]

    struct PlanCase: Sendable, CustomTestStringConvertible {
        let name: String
        var arguments: BodyArguments
        let plan: BodyPlan
        var testDescription: String { name }

        init(_ name: String, _ arguments: [A], request: String? = nil, method: String? = nil, head: Bool = false, _ plan: BodyPlan) {
            self.name = name
            self.arguments = BodyArguments(arguments: arguments, request: request, method: method, head: head)
            self.plan = plan
        }
    }

    static func bytes(_ text: String) -> PlannedBody { .bytes(Array(text.utf8)) }

    static let plans: [PlanCase] = [
        PlanCase("nothing", [], BodyPlan(method: "GET")),
        PlanCase("head alone", [], head: true, BodyPlan(method: "HEAD")),
        PlanCase("--request alone", [], request: "DELETE", BodyPlan(method: "DELETE")),
        PlanCase("--method is upper-cased (wget)", [], method: "put", BodyPlan(method: "PUT")),
        PlanCase("--request is verbatim (curl)", [], request: "purge", BodyPlan(method: "purge")),
        PlanCase("same method both ways", [], request: "PUT", method: "put", BodyPlan(method: "PUT")),
        // curl 7.88.1: `-d 'a b' -d c` sends `a b&c`.
        PlanCase("-d joined with &", [.data("a b"), .data("c")], BodyPlan(method: "POST", body: bytes("a b&c"), defaultHeaders: urlencoded)),
        PlanCase("empty -d is an empty POST", [.data("")], BodyPlan(method: "POST", body: bytes(""), defaultHeaders: urlencoded)),
        PlanCase("no & after an empty piece", [.data(""), .data("a")], BodyPlan(method: "POST", body: bytes("a"), defaultHeaders: urlencoded)),
        // curl 7.88.1: `-d a --data-binary b --data-urlencode 'c=d e' --data-raw @x` sends `a&b&c=d+e&@x`.
        PlanCase("mixed data family", [.data("a"), .dataBinary("b"), .dataURLEncode("c=d e"), .dataRaw("@x")],
                 BodyPlan(method: "POST", body: bytes("a&b&c=d+e&@x"), defaultHeaders: urlencoded)),
        // curl 7.88.1: `--json '{"a":1}' --json '{"b":2}'` sends `{"a":1}{"b":2}`; `-d x --json …` sends `x{…}`; `--json … -d x` sends `{…}&x`.
        PlanCase("--json concatenates", [.json(#"{"a":1}"#), .json(#"{"b":2}"#)], BodyPlan(method: "POST", body: bytes(#"{"a":1}{"b":2}"#), defaultHeaders: json)),
        PlanCase("--json after -d has no &", [.data("x"), .json(#"{"a":1}"#)], BodyPlan(method: "POST", body: bytes(#"x{"a":1}"#), defaultHeaders: json)),
        PlanCase("-d after --json has &", [.json(#"{"a":1}"#), .data("x")], BodyPlan(method: "POST", body: bytes(#"{"a":1}&x"#), defaultHeaders: json)),
        PlanCase("-X overrides -d's POST", [.data("x")], request: "PUT", BodyPlan(method: "PUT", body: bytes("x"), defaultHeaders: urlencoded)),
        PlanCase("GET with a body is allowed", [.data("x")], request: "GET", BodyPlan(method: "GET", body: bytes("x"), defaultHeaders: urlencoded)),
        PlanCase("lone --data-binary @file streams", [.dataBinary("@big.iso")], BodyPlan(method: "POST", body: .file(path: "big.iso"), defaultHeaders: urlencoded)),
        PlanCase("lone --json @file streams", [.json("@a.json")], BodyPlan(method: "POST", body: .file(path: "a.json"), defaultHeaders: json)),
        PlanCase("lone --data-binary @- streams stdin", [.dataBinary("@-")], BodyPlan(method: "POST", body: .standardInput, defaultHeaders: urlencoded)),
        PlanCase("-d @file is read and stripped", [.data("@f")], BodyPlan(method: "POST", body: .joined([DataPiece(.file(path: "f", strip: true), isJSON: false)]), defaultHeaders: urlencoded)),
        PlanCase("-d @- is read and stripped", [.data("@-")], BodyPlan(method: "POST", body: .joined([DataPiece(.standardInput(strip: true), isJSON: false)]), defaultHeaders: urlencoded)),
        PlanCase("--data-raw keeps @", [.dataRaw("@f")], BodyPlan(method: "POST", body: bytes("@f"), defaultHeaders: urlencoded)),
        PlanCase("--data-urlencode name@file", [.dataURLEncode("n@f")],
                 BodyPlan(method: "POST", body: .joined([DataPiece(.urlencode(.namedFile(name: "n", path: "f")), isJSON: false)]), defaultHeaders: urlencoded)),
        PlanCase("--form", [.form("a=b"), .formString("c=@d")],
                 BodyPlan(method: "POST", body: .form([FormField(name: "a", source: .value("b")), FormField(name: "c", source: .value("@d"))]))),
        PlanCase("--upload-file is PUT without a type", [.uploadFile("x.tar")], BodyPlan(method: "PUT", body: .file(path: "x.tar"), uploadPath: "x.tar")),
        PlanCase("--upload-file - is stdin", [.uploadFile("-")], BodyPlan(method: "PUT", body: .standardInput)),
        PlanCase("--upload-file . is stdin", [.uploadFile(".")], BodyPlan(method: "PUT", body: .standardInput)),
        PlanCase("-T with -X POST", [.uploadFile("f")], request: "POST", BodyPlan(method: "POST", body: .file(path: "f"), uploadPath: "f")),
        // wget 1.21.3: `--post-data 'a b'` sends POST with application/x-www-form-urlencoded.
        PlanCase("--post-data", [.postData("a b")], BodyPlan(method: "POST", body: bytes("a b"), defaultHeaders: urlencoded)),
        PlanCase("--post-file streams", [.postFile("f")], BodyPlan(method: "POST", body: .file(path: "f"), defaultHeaders: urlencoded)),
        PlanCase("repeated --post-data keeps the last", [.postData("a"), .postData("b")], BodyPlan(method: "POST", body: bytes("b"), defaultHeaders: urlencoded)),
        PlanCase("--method with --post-data overrides", [.postData("a")], method: "PUT", BodyPlan(method: "PUT", body: bytes("a"), defaultHeaders: urlencoded)),
        // wget 1.21.3: `--method=put --body-data=x` sends PUT with application/x-www-form-urlencoded.
        PlanCase("--body-data with --method", [.bodyData("x")], method: "put", BodyPlan(method: "PUT", body: bytes("x"), defaultHeaders: urlencoded)),
        PlanCase("--body-file with --request", [.bodyFile("f")], request: "PATCH", BodyPlan(method: "PATCH", body: .file(path: "f"), defaultHeaders: urlencoded)),
    ]

    @Test(arguments: plans)
    func plan(_ c: PlanCase) throws {
        #expect(try c.arguments.plan() == c.plan)
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let name: String
        let arguments: BodyArguments
        let error: BodyArgumentError
        var testDescription: String { name }

        init(_ name: String, _ arguments: [A], request: String? = nil, method: String? = nil, head: Bool = false, _ error: BodyArgumentError) {
            self.name = name
            self.arguments = BodyArguments(arguments: arguments, request: request, method: method, head: head)
            self.error = error
        }
    }

    static let errors: [ErrorCase] = [
        ErrorCase("--form with --data", [.form("a=b"), .data("x")], .conflict("--form", "--data")),
        ErrorCase("--data with --form", [.data("x"), .formString("a=b")], .conflict("--data", "--form-string")),
        ErrorCase("--upload-file with --form", [.uploadFile("f"), .form("a=b")], .conflict("--upload-file", "--form")),
        ErrorCase("--json with --upload-file", [.json("{}"), .uploadFile("f")], .conflict("--json", "--upload-file")),
        ErrorCase("--post-data with --post-file", [.postData("a"), .postFile("f")], .conflict("--post-data", "--post-file")),
        ErrorCase("--body-file with --body-data", [.bodyFile("f"), .bodyData("a")], .conflict("--body-file", "--body-data")),
        ErrorCase("--post-data with --body-data", [.postData("a"), .bodyData("b")], method: "PUT", .conflict("--post-data", "--body-data")),
        ErrorCase("--data with --post-data", [.data("a"), .postData("b")], .conflict("--data", "--post-data")),
        ErrorCase("two --upload-file", [.uploadFile("a"), .uploadFile("b")], .repeated("--upload-file")),
        ErrorCase("--body-data needs a method", [.bodyData("x")], .methodRequired("--body-data")),
        ErrorCase("-I with --data", [.data("x")], head: true, .bodyWithHead("--data")),
        ErrorCase("-X HEAD with --data", [.data("x")], request: "HEAD", .bodyWithHead("--data")),
        ErrorCase("--method=head with --body-data", [.bodyData("x")], method: "head", .bodyWithHead("--body-data")),
        ErrorCase("-I with --upload-file", [.uploadFile("f")], head: true, .bodyWithHead("--upload-file")),
        ErrorCase("-I with --form", [.form("a=b")], head: true, .bodyWithHead("--form")),
        ErrorCase("--request and --method disagree", [], request: "PUT", method: "POST", .conflict("--request", "--method")),
        ErrorCase("method with a space", [], request: "GET /x", .invalidMethod("GET /x")),
        ErrorCase("method with CRLF", [], request: "GET\r\nX: y", .invalidMethod("GET\r\nX: y")),
        ErrorCase("empty method", [], request: "", .invalidMethod("")),
        ErrorCase("non-ASCII method", [], method: "pöst", .invalidMethod("PöST")),
        ErrorCase("overlong method", [], request: String(repeating: "A", count: 65), .invalidMethod(String(repeating: "A", count: 65))),
        ErrorCase("-d @ without a name", [.data("@")], .emptyFileName("--data")),
        ErrorCase("--data-urlencode @ without a name", [.dataURLEncode("n@")], .emptyFileName("--data-urlencode")),
        ErrorCase("empty --upload-file", [.uploadFile("")], .emptyFileName("--upload-file")),
        ErrorCase("empty --post-file", [.postFile("")], .emptyFileName("--post-file")),
        ErrorCase("bad --form", [.form("novalue")], .badFormField("novalue", reason: "expected name=content")),
    ]

    @Test(arguments: errors)
    func refuses(_ c: ErrorCase) {
        #expect(throws: c.error) { try c.arguments.plan() }
        #expect(c.error.isUsageError)
    }

    @Test func messagesAreOneLine() {
        for c in Self.errors + [ErrorCase("", [], .tooLargeForMemory(10))] {
            #expect(!c.error.description.contains("\n") && !c.error.description.contains("\r"), "\(c.error)")
        }
        #expect(BodyArgumentError.conflict("--form", "--data").description == "--form and --data cannot be used together")
        #expect(!BodyArgumentError.tooLargeForMemory(10).isUsageError)
    }

    /// Reads from a fake file system: files by name, "-" for standard input.
    static func reader(_ files: [String: String]) -> (DataSource) throws -> [UInt8] {
        { source in
            switch source {
            case .standardInput: return Array((files["-"] ?? "").utf8)
            case .file(let path):
                guard let text = files[path] else { throw BodyReadError(.open, path: path, errno: 2) }
                return Array(text.utf8)
            }
        }
    }

    @Test func joiningReadsStripsAndEncodesLikeCurl() throws {
        let files = ["f.txt": "l1\r\nl2\nl3\n", "g.txt": "a\rb\nc\u{0}d\n", "-": "in put\n"]
        func body(_ arguments: [A]) throws -> String {
            let plan = try BodyArguments(arguments: arguments).plan()
            guard case .data(let bytes) = try plan.body?.requestBody(read: Self.reader(files), standardInputStream: { .once(AsyncThrowingStream { $0.finish() }) }) else {
                Issue.record("not in memory")
                return ""
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(try body([.data("@f.txt")]) == "l1l2l3")                         // curl 7.88.1
        #expect(try body([.data("@g.txt")]) == "abcd")                           // curl 8: CR, LF and NUL removed
        #expect(try body([.data("@-"), .data("x")]) == "in put&x")
        #expect(try body([.dataBinary("@f.txt"), .dataBinary("@f.txt")]) == "l1\r\nl2\nl3\n&l1\r\nl2\nl3\n")
        #expect(try body([.dataURLEncode("@f.txt")]) == "l1%0D%0Al2%0Al3%0A")   // curl 7.88.1
        #expect(try body([.dataURLEncode("n@f.txt"), .dataURLEncode("m@-")]) == "n=l1%0D%0Al2%0Al3%0A&m=in+put%0A")
        #expect(try body([.json("@f.txt"), .json("{}")]) == "l1\r\nl2\nl3\n{}")
        #expect(throws: BodyReadError(.open, path: "missing", errno: 2)) { try body([.data("@missing")]) }
    }

    @Test func inMemoryBodiesAreBounded() throws {
        let pieces = [DataPiece(.file(path: "f", strip: false), isJSON: false), DataPiece(.literal([1, 2]), isJSON: false)]
        let read: (DataSource) throws -> [UInt8] = { _ in [UInt8](repeating: 7, count: 8) }
        #expect(try PlannedBody.join(pieces, limit: 11, read: read).count == 11)
        #expect(throws: BodyArgumentError.tooLargeForMemory(10)) { try PlannedBody.join(pieces, limit: 10, read: read) }
        let encode = [DataPiece(.urlencode(.file(path: "f")), isJSON: false)]
        #expect(throws: BodyArgumentError.tooLargeForMemory(20)) { try PlannedBody.join(encode, limit: 20, read: read) }   // 8 bytes → 24 encoded
        let stdinForm = PlannedBody.form([FormField(name: "f", source: .standardInput)])
        #expect(throws: BodyArgumentError.tooLargeForMemory(4)) {
            try stdinForm.requestBody(limit: 4, read: read, standardInputStream: { .once(AsyncThrowingStream { $0.finish() }) })
        }
    }

    @Test func conversionToRequestBodies() throws {
        let read = Self.reader(["-": "stdin"])
        let stream = BodyStream.once(AsyncThrowingStream { $0.finish() })
        func convert(_ body: PlannedBody) throws -> RequestBody { try body.requestBody(read: read, standardInputStream: { stream }) }
        #expect(try convert(.file(path: "f")) == .file(path: "f"))
        #expect(try convert(.standardInput) == .stream(stream))
        #expect(try convert(.bytes([1])) == .data([1]))
        guard case .multipart(let form) = try convert(.form([FormField(name: "a", source: .standardInput), FormField(name: "b", source: .file(path: "x.png"))])) else {
            Issue.record("not a form")
            return
        }
        #expect(form.parts.map(\.content) == [.bytes(Array("stdin".utf8)), .file(path: "x.png")])
        #expect(PlannedBody.standardInput.readsStandardInput && !PlannedBody.file(path: "-").readsStandardInput)
        #expect(PlannedBody.joined([DataPiece(.urlencode(.namedFile(name: "a", path: "-")), isJSON: false)]).readsStandardInput)
        #expect(PlannedBody.form([FormField(name: "a", source: .standardInputContents)]).readsStandardInput)
    }

    /// curl 7.88.1 `-T 'we ird.txt' URL` request lines, and curl 8's rule that a query keeps the URL as it is.
    @Test(arguments: [
        ("http://h:1/dir/", "we ird.txt", "http://h:1/dir/we%20ird.txt"),
        ("http://h:1", "we ird.txt", "http://h:1/we%20ird.txt"),
        ("http://h:1/", "we ird.txt", "http://h:1/we%20ird.txt"),
        ("http://h:1/dir/#frag", "we ird.txt", "http://h:1/dir/we%20ird.txt#frag"),
        ("http://h:1/x", "we ird.txt", "http://h:1/x"),
        ("http://h:1/a%20b/", "sub/dir/f.txt", "http://h:1/a%20b/f.txt"),
        ("http://h:1/dir/?q=1", "f.txt", "http://h:1/dir/?q=1"),
        ("http://h:1?q=1", "f.txt", "http://h:1?q=1"),
        ("http://h:1/d/", "C:\\x\\é.bin", "http://h:1/d/%C3%A9.bin"),
        ("http://h:1/d/", "dir/", "http://h:1/d/"),
        ("h/d/", "f", "h/d/f"),
        ("", "f", "/f"),
    ])
    func uploadURL(_ url: String, _ path: String, _ expected: String) {
        #expect(BodyArguments.uploadURL(url, uploading: path) == expected)
    }
}
