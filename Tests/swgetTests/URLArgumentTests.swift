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
}
