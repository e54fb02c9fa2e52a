import Testing
import SwgetKit
@testable import SwgetCLI

@Suite("curl --form field syntax")
struct CurlFormFieldTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let argument: String
        let field: FormField
        var testDescription: String { argument.debugDescription }
    }

    /// curl 7.88.1's reading of each argument, checked against its requests on an echo server.
    static let accepted: [Case] = [
        Case(argument: "a=b", field: FormField(name: "a", source: .value("b"))),
        Case(argument: "a=", field: FormField(name: "a", source: .value(""))),
        Case(argument: "=v", field: FormField(name: nil, source: .value("v"))),
        Case(argument: "a=b=c", field: FormField(name: "a", source: .value("b=c"))),
        Case(argument: #"a="b;c\"d\\e""#, field: FormField(name: "a", source: .value(#"b;c"d\e"#))),
        Case(argument: #"a="b"junk;type=text/x"#, field: FormField(name: "a", source: .value("b"), contentType: "text/x")),
        Case(argument: #"a="unterminated"#, field: FormField(name: "a", source: .value(#""unterminated"#))),
        Case(argument: "a=  spaced  ;type= text/plain ", field: FormField(name: "a", source: .value("spaced"), contentType: "text/plain")),
        Case(argument: "na\"m\\e\nx=v", field: FormField(name: "na\"m\\e\nx", source: .value("v"))),
        Case(argument: "é=名前", field: FormField(name: "é", source: .value("名前"))),
        Case(argument: "f=@we ird.txt", field: FormField(name: "f", source: .file(path: "we ird.txt"))),
        Case(argument: #"f=@we ird.txt;type=text/x-foo;charset=utf-8;filename="q\"uo;te.txt""#,
             field: FormField(name: "f", source: .file(path: "we ird.txt"), filename: #"q"uo;te.txt"#, contentType: "text/x-foo;charset=utf-8")),
        Case(argument: "f=@a.bin;type=image/png; charset=x ;filename=b.png",
             field: FormField(name: "f", source: .file(path: "a.bin"), filename: "b.png", contentType: "image/png; charset=x")),
        Case(argument: "f=@a.bin;TYPE=a/b;FileName=c", field: FormField(name: "f", source: .file(path: "a.bin"), filename: "c", contentType: "a/b")),
        Case(argument: #"f=@"a,b;c.txt""#, field: FormField(name: "f", source: .file(path: "a,b;c.txt"))),
        Case(argument: "f=@a;filename=", field: FormField(name: "f", source: .file(path: "a"), filename: "")),
        Case(argument: "f=@-", field: FormField(name: "f", source: .standardInput)),
        Case(argument: "f=@-;filename=in.txt", field: FormField(name: "f", source: .standardInput, filename: "in.txt")),
        Case(argument: "f=<we ird.txt", field: FormField(name: "f", source: .fileContents(path: "we ird.txt"))),
        Case(argument: "f=<-;type=application/json", field: FormField(name: "f", source: .standardInputContents, contentType: "application/json")),
        Case(argument: "x=v;filename=q.html", field: FormField(name: "x", source: .value("v"), filename: "q.html")),
        // A second type= right after the first belongs to it; after filename= it starts anew (curl's endct).
        Case(argument: "x=v;type=a/b;type=c/d", field: FormField(name: "x", source: .value("v"), contentType: "a/b;type=c/d")),
        Case(argument: "x=v;type=a/b;filename=f;type=c/d", field: FormField(name: "x", source: .value("v"), filename: "f", contentType: "c/d")),
    ]

    @Test(arguments: accepted)
    func parses(_ c: Case) throws {
        #expect(try FormField(parsing: c.argument) == c.field)
    }

    @Test(arguments: [
        ("nov", "expected name=content"),
        ("a=b;c", "unknown parameter 'c' (quote a value that holds ';')"),
        ("a=b;", "empty parameter after ';' (quote a value that holds ';')"),
        ("a=v;type=bad", "type= needs a content type like text/plain"),
        ("a=v;type=/x", "type= needs a content type like text/plain"),
        ("a=v;type=x/", "type= needs a content type like text/plain"),
        ("f=@a,b", "several files in one field are not supported; use one --form per file"),
        ("f=@", "missing file name after @"),
        ("f=<", "missing file name after <"),
        ("f=<x;filename=y", "filename= cannot be used with <file"),
        ("f=v;headers=X-A: 1", "headers= is not supported"),
        ("f=@a;encoder=base64", "encoder= is not supported"),
        ("f=(;type=multipart/mixed", "multipart/mixed groups are not supported"),
        ("=)", "multipart/mixed groups are not supported"),
    ])
    func refuses(_ argument: String, _ reason: String) {
        #expect(throws: BodyArgumentError.badFormField(argument, reason: reason)) { try FormField(parsing: argument) }
    }

    @Test func formStringIsLiteral() throws {
        #expect(try FormField(parsing: "a=@x;type=y/z,\"q\"", literal: true) == FormField(name: "a", source: .value("@x;type=y/z,\"q\"")))
        #expect(throws: BodyArgumentError.badFormField("novalue", reason: "expected name=content")) { try FormField(parsing: "novalue", literal: true) }
    }

    @Test func hostileInputNeverCrashes() {
        var random = UInt64(99)
        let alphabet = Array("=@<;\",\\ \t\r\ntype=filename=a/b-()".utf8)
        for _ in 0..<5000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(random % 24) {
                random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(alphabet[Int(random >> 33) % alphabet.count])
            }
            let field = try? FormField(parsing: String(decoding: bytes, as: UTF8.self))
            _ = try? field?.part { [] }
        }
    }

    /// Fields turned into parts and encoded: the header lines curl 7.88.1 sent for them.
    @Test func partsEncodeLikeCurl() throws {
        let fields = try [
            FormField(parsing: "na\"m\\e\nx=v"),
            FormField(parsing: "x=@-"),
            FormField(parsing: "x=v;filename=q.html"),
            FormField(parsing: "x=<b.PNG"),
            FormField(parsing: "x=@a.bin;filename=\"\""),
        ]
        let parts = try fields.map { try $0.part { Array("in".utf8) } }
        let form = try MultipartFormData(parts: parts, boundary: "B")
        var reader = try BodyReader(multipart: MultipartFormData(parts: [parts[0], parts[1], parts[2]], boundary: "B"))
        var bytes: [UInt8] = []
        while let chunk = try reader.next() { bytes += chunk }
        #expect(String(decoding: bytes, as: UTF8.self) == """
            --B\r\nContent-Disposition: form-data; name="na%22m\\e%0Ax"\r\n\r\nv\r\n\
            --B\r\nContent-Disposition: form-data; name="x"; filename="-"\r\n\r\nin\r\n\
            --B\r\nContent-Disposition: form-data; name="x"; filename="q.html"\r\nContent-Type: text/html\r\n\r\nv\r\n--B--\r\n
            """)
        #expect(form.parts[3] == (try MultipartFormData.Part(name: "x", filename: nil, contentType: "image/png", content: .file(path: "b.PNG"))))
        #expect(form.parts[4] == (try MultipartFormData.Part(name: "x", filename: "", contentType: "application/octet-stream", content: .file(path: "a.bin"))))
    }
}
