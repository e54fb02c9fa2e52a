import Testing
@testable import SwgetKit

@Suite struct ContentDispositionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let header: String
        let type: String
        let filename: String?
        var parameters: [String: String] = [:]
        var testDescription: String { header.debugDescription }
    }

    static let cases: [Case] = [
        Case(header: "attachment", type: "attachment", filename: nil),
        Case(header: "INLINE", type: "inline", filename: nil),
        Case(header: "attachment; filename=foo.html", type: "attachment", filename: "foo.html"),
        Case(header: "attachment; filename=\"foo.html\"", type: "attachment", filename: "foo.html"),
        Case(header: "  Attachment ;  FileName = \"foo.html\"  ", type: "attachment", filename: "foo.html"),
        Case(header: "attachment; FILENAME=\"upper.txt\"", type: "attachment", filename: "upper.txt"),
        // Quoted strings: escaped quotes and backslashes, semicolons inside quotes.
        Case(header: #"attachment; filename="a \"quoted\" name.txt""#, type: "attachment", filename: #"a "quoted" name.txt"#),
        Case(header: #"attachment; filename="f\oo.html""#, type: "attachment", filename: "foo.html"),
        Case(header: #"attachment; filename="back\\slash.txt""#, type: "attachment", filename: #"back\slash.txt"#),
        Case(header: "attachment; filename=\"semi;colon.txt\"; size=3", type: "attachment", filename: "semi;colon.txt",
             parameters: ["size": "3"]),
        // Missing quotes: an unquoted value runs to ";", a missing closing quote to the end.
        Case(header: "attachment; filename=foo bar.txt; x=1", type: "attachment", filename: "foo bar.txt", parameters: ["x": "1"]),
        Case(header: "attachment; filename=\"unterminated.txt", type: "attachment", filename: "unterminated.txt"),
        Case(header: "attachment; filename=\"foo.txt\" trailing; x=y", type: "attachment", filename: "foo.txt", parameters: ["x": "y"]),
        // RFC 8187 filename*.
        Case(header: "attachment; filename*=UTF-8''na%C3%AFve%20file.txt", type: "attachment", filename: "naïve file.txt"),
        Case(header: "attachment; filename*=iso-8859-1'en'%A3%20rates", type: "attachment", filename: "£ rates"),
        Case(header: "attachment; filename*=utf-8'de'%E2%82%AC%20rates.pdf", type: "attachment", filename: "€ rates.pdf"),
        Case(header: "attachment; filename=\"EURO rates\"; filename*=utf-8''%e2%82%ac%20rates", type: "attachment",
             filename: "€ rates"),
        Case(header: "attachment; filename*=UTF-8''star.txt; filename=plain.txt", type: "attachment", filename: "star.txt"),
        Case(header: "attachment; FILENAME*=UTF-8''Upper%2Etxt", type: "attachment", filename: "Upper.txt"),
        Case(header: "attachment; filename*=\"UTF-8''quoted%20ext.txt\"", type: "attachment", filename: "quoted ext.txt"),
        // filename* that cannot be decoded falls back to filename.
        Case(header: "attachment; filename*=KOI8-R''%F0%D2%C9; filename=fallback.txt", type: "attachment", filename: "fallback.txt"),
        Case(header: "attachment; filename*=UTF-8''bad%ZZ; filename=fallback.txt", type: "attachment", filename: "fallback.txt"),
        Case(header: "attachment; filename*=UTF-8''%FF%FE; filename=fallback.txt", type: "attachment", filename: "fallback.txt"),
        Case(header: "attachment; filename*=no-quotes.txt; filename=fallback.txt", type: "attachment", filename: "fallback.txt"),
        Case(header: "attachment; filename*=UTF-8''only%ZZbad", type: "attachment", filename: nil),
        // Not sanitised here: hostile names come out as sent.
        Case(header: "attachment; filename=\"../../etc/passwd\"", type: "attachment", filename: "../../etc/passwd"),
        // Other parameters, duplicates (first wins), garbage between parameters.
        Case(header: "attachment; filename=a.txt; filename=b.txt", type: "attachment", filename: "a.txt"),
        Case(header: "attachment; Creation-Date=\"Wed, 12 Feb 1997 16:29:51 -0500\"; filename=x", type: "attachment",
             filename: "x", parameters: ["creation-date": "Wed, 12 Feb 1997 16:29:51 -0500"]),
        Case(header: "attachment; garbage; =novalue; ;; filename=ok.txt", type: "attachment", filename: "ok.txt"),
        Case(header: "attachment; filename=", type: "attachment", filename: nil),
        Case(header: "attachment; filename", type: "attachment", filename: nil),
        Case(header: "form-data; name=\"field\"", type: "form-data", filename: nil, parameters: ["name": "field"]),
        // Parameters without a disposition type, as some servers send.
        Case(header: "filename=\"typeless.txt\"", type: "", filename: "typeless.txt"),
        Case(header: "filename*=UTF-8''typeless%20star", type: "", filename: "typeless star"),
    ]

    @Test(arguments: cases)
    func parses(_ c: Case) throws {
        let parsed = try #require(ContentDisposition(c.header))
        #expect(parsed.type == c.type)
        #expect(parsed.filename == c.filename)
        #expect(parsed.parameters == c.parameters)
    }

    @Test(arguments: ["", "   ", "\t", ";", "; filename=x", "\"attachment\"", "=x", "==", "\u{1}"])
    func rejectsUnparseable(_ header: String) {
        #expect(ContentDisposition(header) == nil)
    }

    @Test func parsesEachPrefixOfAHeaderWithoutCrashing() {
        let header = #"attachment; filename="a \"b\";c.txt"; filename*=UTF-8''%C3%A9t%C3%A9.txt; x="y"#
        for end in header.indices {
            _ = ContentDisposition(String(header[..<end]))
        }
        #expect(ContentDisposition(header)?.filename == "été.txt")
    }
}
