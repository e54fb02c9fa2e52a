import Testing
@testable import SwgetKit

@Suite("Form URL encoding (curl --data-urlencode, WHATWG forms)")
struct FormURLEncodingTests {
    typealias Argument = FormURLEncoding.DataURLEncodeArgument

    @Test func percentEncodeKeepsExactlyTheUnreservedBytes() {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        for byte in UInt8.min...UInt8.max {
            let encoded = FormURLEncoding.percentEncode([byte])
            if unreserved.contains(byte) {
                #expect(encoded.utf8.elementsEqual([byte]))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                #expect(encoded == "%" + (hex.count == 1 ? "0" + hex : hex), "byte \(byte)")
            }
        }
    }

    /// Outputs recorded from curl 7.88.1 against an echo server.
    @Test(arguments: [
        ("a b", "a+b"), ("a b/é~*", "a+b%2F%C3%A9~%2A"), ("", ""), ("+", "%2B"), ("%20", "%2520"),
        ("line\r\nnext\0", "line%0D%0Anext%00"), ("&=;", "%26%3D%3B"),
    ])
    func dataURLEncodeSpacesAsPlus(_ input: String, _ expected: String) {
        #expect(FormURLEncoding.dataURLEncode(input.utf8) == expected)
        #expect(FormURLEncoding.percentEncode(input).replacingPercent20() == expected)
    }

    struct FormCase: Sendable, CustomTestStringConvertible {
        let argument: String
        let parsed: Argument
        let inline: String?
        var testDescription: String { argument.debugDescription }
    }

    /// Every form of curl's manual, and the ones where `=` and `@` both appear.
    static let forms: [FormCase] = [
        FormCase(argument: "content here", parsed: .content("content here"), inline: "content+here"),
        FormCase(argument: "=a b", parsed: .content("a b"), inline: "a+b"),
        FormCase(argument: "n=a b/é~*", parsed: .named(name: "n", content: "a b/é~*"), inline: "n=a+b%2F%C3%A9~%2A"),
        FormCase(argument: "a b&c=d", parsed: .named(name: "a b&c", content: "d"), inline: "a b&c=d"),
        FormCase(argument: "a@b=c d", parsed: .named(name: "a@b", content: "c d"), inline: "a@b=c+d"),
        FormCase(argument: "x=@y", parsed: .named(name: "x", content: "@y"), inline: "x=%40y"),
        FormCase(argument: "x=", parsed: .named(name: "x", content: ""), inline: "x="),
        FormCase(argument: "=", parsed: .content(""), inline: ""),
        FormCase(argument: "", parsed: .content(""), inline: ""),
        FormCase(argument: "==", parsed: .content("="), inline: "%3D"),
        FormCase(argument: "@data.txt", parsed: .file(path: "data.txt"), inline: nil),
        FormCase(argument: "name@data.txt", parsed: .namedFile(name: "name", path: "data.txt"), inline: nil),
        FormCase(argument: "name@-", parsed: .namedFile(name: "name", path: "-"), inline: nil),
        FormCase(argument: "@", parsed: .file(path: ""), inline: nil),
        FormCase(argument: "a@b@c", parsed: .namedFile(name: "a", path: "b@c"), inline: nil),
    ]

    @Test(arguments: forms)
    func dataURLEncodeForms(_ c: FormCase) {
        let parsed = Argument(c.argument)
        #expect(parsed == c.parsed)
        #expect(parsed.encodedInline == c.inline)
    }

    @Test func fileFormsEncodeTheBytesWithNewlinesAndTheName() {
        let bytes: [UInt8] = Array("l1\r\nl2\nl3\n".utf8)
        // curl 7.88.1: `--data-urlencode @f` and `n@f` over this file.
        #expect(Argument("@f").encoded(content: bytes) == "l1%0D%0Al2%0Al3%0A")
        #expect(Argument("n@f").encoded(content: bytes) == "n=l1%0D%0Al2%0Al3%0A")
        #expect(Argument("n@f").encoded(content: []) == "n=")
        #expect(Argument("n@-").isStandardInput && !Argument("n@f").isStandardInput && !Argument("-").isStandardInput)
        #expect(Argument("@f").name == nil && Argument("n@f").name == "n" && Argument("n=v").path == nil)
    }

    @Test func binaryContentIsFullyEscaped() {
        let all = (0...255).map(UInt8.init)
        let encoded = FormURLEncoding.dataURLEncode(all)
        #expect(encoded.utf8.allSatisfy { $0 >= 0x21 && $0 < 0x7F })
        #expect(encoded.contains("+") && !encoded.contains("%20"))
    }

    @Test(arguments: [
        ([("a", "b")], "a=b"), ([("a b", "c~d*e")], "a+b=c%7Ed*e"), ([("x", ""), ("", "y")], "x=&=y"),
        ([("é", "&=")], "%C3%A9=%26%3D"), ([], ""),
    ] as [([(String, String)], String)])
    func whatwgSerializer(_ pairs: [(String, String)], _ expected: String) {
        #expect(FormURLEncoding.serialize(pairs.map { (name: $0.0, value: $0.1) }) == expected)
    }

    @Test func hugeInputIsLinearAndComplete() {
        let input = [UInt8](repeating: 0x20, count: 1 << 20) + [UInt8](repeating: 0xFF, count: 1 << 20)
        let encoded = FormURLEncoding.dataURLEncode(input)
        #expect(encoded.utf8.count == (1 << 20) + 3 * (1 << 20))
    }
}

private extension String {
    func replacingPercent20() -> String {
        var out = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: "%20") {
            out += rest[..<range.lowerBound] + "+"
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
