import Testing
@testable import SwgetCLI

/// How a command-line argument is read as a URL before the request is built.
@Suite("URL arguments")
struct URLArgumentTests {
    /// A scheme is named by `://` anywhere, or by a leading `data:` in any case; anything else
    /// is taken as `http://` plus the argument, as wget does.
    @Test(arguments: [
        ("http://example.com/a", true), ("ftp://h/", true), ("HTTPS://H/", true), ("x://y", true),
        ("data:,hello", true), ("DATA:text/plain,hi", true), ("Data:,", true),
        ("example.com/a", false), ("example.com:8080/a", false), ("a:/b", false), ("a:b//c", false),
        ("data", false), ("dat:,x", false), ("", false), (":", false), ("//host/", false), ("data;,x", false),
        ("example.com/x?u=http://y", true),
    ])
    func schemeIsNamed(_ argument: String, _ named: Bool) {
        #expect(SwgetCommand.hasScheme(argument) == named)
    }

    /// One pass tells a space or control character (the argument is refused) and a byte over
    /// 0x7F (the argument goes through IDNA and percent-encoding).
    @Test(arguments: [
        ("http://example.com/a", false, false), ("http://bücher.example/", false, true),
        ("http://a/ b", true, false), ("http://a/\u{7F}", true, false), ("ü\t", true, true),
        ("\u{0}", true, false), ("", false, false), ("日本", false, true), ("~!*'();:@&=+$,/?#[]", false, false),
    ])
    func bytesAreClassifiedInOnePass(_ argument: String, _ control: Bool, _ nonASCII: Bool) {
        let found = SwgetCommand.classify(argument)
        #expect(found.control == control)
        if !control { #expect(found.nonASCII == nonASCII) }
    }
}
