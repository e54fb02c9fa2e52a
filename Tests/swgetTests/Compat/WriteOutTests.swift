import Testing
@testable import SwgetCLI

@Suite("--write-out (curl's format)")
struct WriteOutTests {
    static let values: WriteOutValues = {
        var v = WriteOutValues()
        v.httpCode = 200
        v.url = "http://example.com/f"
        v.urlEffective = "https://example.com/final"
        v.filenameEffective = "final"
        v.sizeDownload = 1234
        v.sizeUpload = 56
        v.sizeHeader = 189
        v.sizeRequest = 78
        v.speedDownload = 98765
        v.speedUpload = 12
        v.timeNamelookup = .microseconds(1_500)
        v.timeConnect = .microseconds(2_250)
        v.timeAppconnect = .microseconds(10_000)
        v.timePretransfer = .microseconds(10_100)
        v.timeStarttransfer = .microseconds(20_000)
        v.timeTotal = .seconds(3) + .microseconds(456_789) + .nanoseconds(999)
        v.timeRedirect = .milliseconds(5)
        v.numRedirects = 1
        v.numConnects = 2
        v.numRetries = 3
        v.redirectURL = nil
        v.contentType = "text/html; charset=utf-8"
        v.exitCode = 0
        v.errorMessage = nil
        v.remoteIP = "93.184.216.34"
        v.remotePort = 443
        v.localIP = "10.0.0.2"
        v.localPort = 50000
        v.scheme = "https"
        v.method = "GET"
        v.httpVersion = "1.1"
        v.urlNumber = 4
        v.headers = [.init(name: "Content-Type", value: "text/html; charset=utf-8"), .init(name: "Set-Cookie", value: "a=1"),
                     .init(name: "ETag", value: "\"v1\""), .init(name: "set-cookie", value: "b=2")]
        return v
    }()

    static let expectedText: [String: String] = [
        "content_type": "text/html; charset=utf-8", "errormsg": "", "exitcode": "0", "filename_effective": "final",
        "http_code": "200", "http_version": "1.1", "local_ip": "10.0.0.2", "local_port": "50000", "method": "GET",
        "num_connects": "2", "num_headers": "4", "num_redirects": "1", "num_retries": "3", "redirect_url": "",
        "remote_ip": "93.184.216.34", "remote_port": "443", "response_code": "200", "scheme": "https",
        "size_download": "1234", "size_header": "189", "size_request": "78", "size_upload": "56",
        "speed_download": "98765", "speed_upload": "12", "time_appconnect": "0.010000", "time_connect": "0.002250",
        "time_namelookup": "0.001500", "time_pretransfer": "0.010100", "time_redirect": "0.005000",
        "time_starttransfer": "0.020000", "time_total": "3.456789", "url": "http://example.com/f",
        "url_effective": "https://example.com/final", "urlnum": "4",
    ]

    @Test(arguments: WriteOutFormat.Variable.allCases)
    func everyVariable(_ variable: WriteOutFormat.Variable) throws {
        let format = WriteOutFormat(parsing: "[%{\(variable.rawValue)}]")
        #expect(format.warnings.isEmpty)
        let expected = try #require(Self.expectedText[variable.rawValue])
        #expect(format.renderedText(Self.values) == "[\(expected)]")
    }

    @Test func defaultsPrintAsCurlDoes() {
        let format = WriteOutFormat(parsing: "%{http_code} %{time_total} %{size_download} %{url_effective}|%{errormsg}|")
        #expect(format.renderedText(WriteOutValues()) == "000 0.000000 0 ||")
        var failed = WriteOutValues()
        failed.exitCode = 7
        failed.errorMessage = "Failed to connect"
        #expect(WriteOutFormat(parsing: "%{exitcode}: %{errormsg}").renderedText(failed) == "7: Failed to connect")
        var odd = WriteOutValues()
        odd.httpCode = 7
        odd.timeTotal = .seconds(-1)
        #expect(WriteOutFormat(parsing: "%{http_code} %{time_total}").renderedText(odd) == "007 0.000000")
    }

    @Test func jsonHasEveryVariableInCurlsOrder() {
        let json = WriteOutFormat(parsing: "%{json}").renderedText(Self.values)
        let expected = """
            {"content_type":"text/html; charset=utf-8","errormsg":null,"exitcode":0,"filename_effective":"final",\
            "http_code":200,"http_version":"1.1","local_ip":"10.0.0.2","local_port":50000,"method":"GET",\
            "num_connects":2,"num_headers":4,"num_redirects":1,"num_retries":3,"redirect_url":null,\
            "remote_ip":"93.184.216.34","remote_port":443,"response_code":200,"scheme":"https",\
            "size_download":1234,"size_header":189,"size_request":78,"size_upload":56,"speed_download":98765,\
            "speed_upload":12,"time_appconnect":0.010000,"time_connect":0.002250,"time_namelookup":0.001500,\
            "time_pretransfer":0.010100,"time_redirect":0.005000,"time_starttransfer":0.020000,\
            "time_total":3.456789,"url":"http://example.com/f","url_effective":"https://example.com/final","urlnum":4}
            """
        #expect(json == expected)
        let names = WriteOutFormat.Variable.allCases.map(\.rawValue)
        #expect(names == names.sorted())
    }

    @Test func jsonEscapesStrings() {
        var v = WriteOutValues()
        v.errorMessage = "a\"b\\c\nd\re\tf\u{8}g\u{C}h\u{1}i\u{1F}j\u{7F}k é 🙂"
        let json = WriteOutFormat(parsing: "%{json}").renderedText(v)
        #expect(json.contains(#""errormsg":"a\"b\\c\nd\re\tf\bg\fh\u0001i\u001fj\#u{7F}k é 🙂""#))
        #expect(json.contains(#""http_code":0,"#) && json.contains(#""url":null,"#))
    }

    @Test func headers() {
        let format = WriteOutFormat(parsing: "%header{content-type}|%header{SET-COOKIE}|%header{x-missing}|%header{}|")
        #expect(format.renderedText(Self.values) == "text/html; charset=utf-8|a=1|||")
        let long = String(repeating: "x", count: 256)
        #expect(WriteOutFormat(parsing: "a%header{\(long)}b").tokens == [.text("ab")])
        #expect(WriteOutFormat(parsing: "a%header{\(long.dropLast())}b").tokens.count == 3)
    }

    @Test func headerJSON() {
        let text = WriteOutFormat(parsing: "%{header_json}").renderedText(Self.values)
        #expect(text == """
            {"content-type":["text/html; charset=utf-8"],
            "set-cookie":["a=1","b=2"],
            "etag":["\\"v1\\""]
            }
            """)
        #expect(WriteOutFormat(parsing: "%{header_json}").renderedText(WriteOutValues()) == "{\n}")
    }

    struct SyntaxCase: CustomTestStringConvertible, Sendable {
        let format: String
        let output: String
        var warnings: [String] = []
        var testDescription: String { format }
    }

    static let syntaxCases: [SyntaxCase] = [
        SyntaxCase(format: "%{http_code}\\n", output: "200\n"),
        SyntaxCase(format: "a\\tb\\rc\\nd", output: "a\tb\rc\nd"),
        SyntaxCase(format: "back\\\\slash", output: "back\\slash"),
        SyntaxCase(format: "\\q\\x", output: "\\q\\x"),
        SyntaxCase(format: "end\\", output: "end\\"),
        SyntaxCase(format: "100%%", output: "100%"),
        SyntaxCase(format: "lone % here", output: "lone % here"),
        SyntaxCase(format: "trail %", output: "trail %"),
        SyntaxCase(format: "%z%é", output: "%z%é"),
        SyntaxCase(format: "%\\n", output: "%\\n"),
        SyntaxCase(format: "%{missing", output: "%{missing"),
        SyntaxCase(format: "A%{http_code}B%{missing", output: "A200B%{missing"),
        SyntaxCase(format: "%header{x-missing", output: "%header{x-missing"),
        SyntaxCase(format: "a%{bogus}b", output: "ab", warnings: ["unknown --write-out variable: 'bogus'"]),
        SyntaxCase(format: "%{HTTP_CODE}%{}", output: "",
                   warnings: ["unknown --write-out variable: 'HTTP_CODE'", "unknown --write-out variable: ''"]),
        SyntaxCase(format: "%{ %%\\n %header{x}", output: "", warnings: ["unknown --write-out variable: ' %%\\n %header{x'"]),
        SyntaxCase(format: "", output: ""),
        SyntaxCase(format: "héllo wörld", output: "héllo wörld"),
        SyntaxCase(format: "%{onerror}never shown", output: ""),
        SyntaxCase(format: "shown%{onerror}hidden", output: "shown"),
    ]

    @Test(arguments: syntaxCases)
    func syntax(_ c: SyntaxCase) {
        let format = WriteOutFormat(parsing: c.format)
        #expect(format.renderedText(Self.values) == c.output)
        #expect(format.warnings == c.warnings)
    }

    @Test func onErrorPrintsTheRestOnFailure() {
        var failed = Self.values
        failed.exitCode = 4
        #expect(WriteOutFormat(parsing: "a%{onerror}b").renderedText(failed) == "ab")
    }

    @Test func streamsSwitch() {
        let format = WriteOutFormat(parsing: "out1%{stderr}err1%{http_code}%{stdout}out2%{stdout}out3")
        #expect(format.render(Self.values) == [
            .init(stream: .standardOutput, text: "out1"),
            .init(stream: .standardError, text: "err1200"),
            .init(stream: .standardOutput, text: "out2out3"),
        ])
    }

    @Test func sources() {
        #expect(WriteOutFormat.source(of: "%{http_code}") == .inline("%{http_code}"))
        #expect(WriteOutFormat.source(of: "@fmt.txt") == .file("fmt.txt"))
        #expect(WriteOutFormat.source(of: "@-") == .standardInput)
        #expect(WriteOutFormat.source(of: "@") == .file(""))
        #expect(WriteOutFormat.source(of: "x@y") == .inline("x@y"))
    }

    @Test func parsesOnceRendersMany() {
        let format = WriteOutFormat(parsing: "%{urlnum}:%{http_code} ")
        let rendered = (0..<3).map { n -> String in
            var v = Self.values
            v.urlNumber = n
            return format.renderedText(v)
        }
        #expect(rendered == ["0:200 ", "1:200 ", "2:200 "])
    }

    @Test func hostileFormatsStayLinear() {
        let braces = String(repeating: "%{", count: 100_000)
        #expect(WriteOutFormat(parsing: braces).renderedText(Self.values) == braces)
        let headers = String(repeating: "%header{", count: 50_000)
        #expect(WriteOutFormat(parsing: headers).renderedText(Self.values) == headers)
        let unknown = String(repeating: "%{x}", count: 10_000)
        #expect(WriteOutFormat(parsing: unknown).warnings.count == 10_000)
    }
}
