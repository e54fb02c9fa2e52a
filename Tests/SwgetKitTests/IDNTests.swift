import Testing
@testable import SwgetKit

@Suite("Internationalised host names and typed URLs (libidn2)")
struct IDNTests {
    struct ASCIICase: CustomTestStringConvertible, Sendable {
        let label: String
        let host: String
        let ascii: String
        var testDescription: String { label }
        init(_ label: String, _ host: String, _ ascii: String) {
            self.label = label
            self.host = host
            self.ascii = ascii
        }
    }

    static let conversions: [ASCIICase] = [
        ASCIICase("German", "bücher.example", "xn--bcher-kva.example"),
        ASCIICase("UTS 46 maps upper case", "BÜCHER.Example", "xn--bcher-kva.example"),
        ASCIICase("full-width letters and dot", "ｅｘａｍｐｌｅ．ｃｏｍ", "example.com"),
        ASCIICase("full-width upper case", "ＡＢＣ.com", "abc.com"),
        ASCIICase("ideographic full stop", "bücher。example", "xn--bcher-kva.example"),
        ASCIICase("half-width ideographic full stop", "bücher｡example", "xn--bcher-kva.example"),
        ASCIICase("Japanese", "例え。テスト", "xn--r8jz45g.xn--zckzah"),
        ASCIICase("non-transitional ß", "faß.de", "xn--fa-hia.de"),
        ASCIICase("Greek final sigma kept", "ΣΑΣ.gr", "xn--mxa9ab.gr"),
        ASCIICase("transitional fallback, as curl", "☃.net", "xn--n3h.net"),
        ASCIICase("ASCII lower-cased", "WWW.Example.COM", "www.example.com"),
        ASCIICase("ASCII punycode kept as typed", "XN--N3H.net", "xn--n3h.net"),
        ASCIICase("trailing dot", "bücher.example.", "xn--bcher-kva.example."),
        ASCIICase("IPv4", "127.0.0.1", "127.0.0.1"),
        ASCIICase("underscore", "_dmarc.example", "_dmarc.example"),
        ASCIICase("63-byte label", String(repeating: "a", count: 63) + ".com", String(repeating: "a", count: 63) + ".com"),
    ]

    @Test(arguments: conversions)
    func toASCII(_ c: ASCIICase) throws {
        #expect(try IDN.toASCII(c.host) == c.ascii)
    }

    struct BadCase: CustomTestStringConvertible, Sendable {
        let label: String
        let host: String
        let reason: String
        var testDescription: String { label }
        init(_ label: String, _ host: String, _ reason: String) {
            self.label = label
            self.host = host
            self.reason = reason
        }
    }

    static let invalid: [BadCase] = [
        BadCase("empty", "", "empty host name"),
        BadCase("space", "a b.com", "contains a space"),
        BadCase("NUL", "a\u{0}b.com", "contains a control character (U+0)"),
        BadCase("escape", "a\u{1B}.com", "contains a control character (U+1B)"),
        BadCase("C1 control", "a\u{85}.com", "contains a control character (U+85)"),
        BadCase("slash", "a/b.com", "contains '/', which is not allowed in a host name"),
        BadCase("at sign", "user@host", "contains '@', which is not allowed in a host name"),
        BadCase("percent", "a%41.com", "contains '%', which is not allowed in a host name"),
        BadCase("full-width solidus maps to /", "ａ／ｂ.com", "contains '/', which is not allowed in a host name"),
        BadCase("full-width exclamation refused by libidn2", "ü！.com", "A-label roundtrip failed"),
        BadCase("ASCII punctuation", "exa*mple.com", "contains '*', which is not allowed in a host name"),
        BadCase("ASCII tilde", "a~b.com", "contains '~', which is not allowed in a host name"),
        BadCase("empty label", "a..b", "empty label"),
        BadCase("leading dot", ".example.com", "empty label"),
        BadCase("two trailing dots", "example.com..", "empty label"),
        BadCase("lone dot", ".", "empty label"),
        BadCase("64-byte label", String(repeating: "a", count: 64) + ".com", "label longer than 63 bytes"),
        BadCase("254 bytes", Array(repeating: String(repeating: "a", count: 50), count: 5).joined(separator: ".") + ".abc",
                "longer than 253 bytes"),
        BadCase("hyphen at start", "-bücher.com", "string start/ends with forbidden hyphen"),
        BadCase("punycode too long", String(repeating: "ü", count: 70) + ".com", "punycode encoded data will be too large"),
        BadCase("huge input", String(repeating: "ü", count: 600), "too long"),
        BadCase("bad punycode with Unicode", "xn--zz.bücher.com", "string contains invalid punycode data"),
    ]

    @Test(arguments: invalid)
    func rejectsInvalidNames(_ c: BadCase) {
        #expect(throws: IDN.Error(host: c.host, reason: c.reason)) { try IDN.toASCII(c.host) }
    }

    @Test func errorDescriptionIsOneClearLine() {
        let error = IDN.Error(host: "a\nb", reason: "contains a control character (U+A)")
        #expect(error.description == "invalid host name 'a?b': contains a control character (U+A)")
    }

    @Test(arguments: [
        ("xn--bcher-kva.example", "bücher.example"),
        ("XN--BCHER-KVA.EXAMPLE", "bücher.example"),
        ("xn--r8jz45g.xn--zckzah", "例え.テスト"),
        ("xn--n3h.net", "☃.net"),
        ("xn--fa-hia.de", "faß.de"),
        ("example.com", "example.com"),
        ("xn--a.com", "xn--a.com"),          // decodes to ".com": shown as it is
        ("xn--zz.com", "xn--zz.com"),        // invalid punycode
        ("xn--a-ecp.ru", "xn--a-ecp.ru"),    // decodes to "a⒈.ru", which IDNA 2008 disallows
        ("127.0.0.1", "127.0.0.1"),
        ("a b", "a b"),
    ])
    func toUnicode(_ ascii: String, _ shown: String) {
        #expect(IDN.toUnicode(ascii) == shown)
    }

    /// A delimiter followed by a combining mark is one Character ("#\u{302}"); TypedURL finds
    /// delimiters among scalars, so the fragment starts there and the wire form reads back the same
    /// (FuzzURL's finding: the mark hid the '#', which stayed raw inside the user name).
    @Test func delimitersBeforeCombiningMarksStillDelimit() throws {
        let url = try TypedURL("http://a#\u{302}@b.example/")
        #expect(url.host == "a")
        #expect(url.wire == "http://a/#%CC%82@b.example/")
        #expect(try TypedURL(url.wire).wire == url.wire)
        let path = try TypedURL("http://h.example/x?\u{301}q#\u{301}f")
        #expect(path.wire == "http://h.example/x?%CC%81q#%CC%81f")
    }

    @Test func roundTrips() throws {
        for host in ["bücher.example", "例え.テスト", "☃.net", "faß.de", "παράδειγμα.δοκιμή"] {
            #expect(IDN.toUnicode(try IDN.toASCII(host)) == host)
        }
    }

    @Test(arguments: [
        ("/ünï code", "/%C3%BCn%C3%AF%20code"),
        ("/a%20b/%C3%A9", "/a%20b/%C3%A9"),
        ("/100%", "/100%25"),
        ("/%zz%4", "/%25zz%254"),
        ("/a\"<>\\^`{|}b", "/a%22%3C%3E%5C%5E%60%7B%7C%7Db"),
        ("/keep/?#[]@!$&'()*+,;=~-._", "/keep/?#[]@!$&'()*+,;=~-._"),
        ("/\u{0}\u{1F}\u{7F}", "/%00%1F%7F"),
        ("/🙂", "/%F0%9F%99%82"),
    ])
    func percentEncoding(_ raw: String, _ encoded: String) {
        #expect(IDN.percentEncoded(raw) == encoded)
    }

    struct URLCase: CustomTestStringConvertible, Sendable {
        let typed: String
        let wire: String
        let display: String
        var testDescription: String { typed }
    }

    static let urls: [URLCase] = [
        URLCase(typed: "http://bücher.example/", wire: "http://xn--bcher-kva.example/", display: "http://bücher.example/"),
        URLCase(typed: "bücher.example", wire: "http://xn--bcher-kva.example/", display: "http://bücher.example/"),
        URLCase(typed: "HTTPS://Bücher.Example:8443/Straße?q=ä#frag ment",
                wire: "https://xn--bcher-kva.example:8443/Stra%C3%9Fe?q=%C3%A4#frag%20ment",
                display: "https://bücher.example:8443/Straße?q=ä#frag%20ment"),
        URLCase(typed: "http://xn--bcher-kva.example/a b", wire: "http://xn--bcher-kva.example/a%20b",
                display: "http://bücher.example/a%20b"),
        URLCase(typed: "http://b%C3%BCcher.example/", wire: "http://xn--bcher-kva.example/", display: "http://bücher.example/"),
        URLCase(typed: "  http://example.com/x\t\n  ", wire: "http://example.com/x", display: "http://example.com/x"),
        URLCase(typed: "http://exam\nple.com/", wire: "http://example.com/", display: "http://example.com/"),
        URLCase(typed: "http://user:p%40ss:w@example.com/", wire: "http://user:p%40ss:w@example.com/",
                display: "http://user@example.com/"),
        URLCase(typed: "http://usér:pässword@example.com/", wire: "http://us%C3%A9r:p%C3%A4ssword@example.com/",
                display: "http://usér@example.com/"),
        URLCase(typed: "http://[::1]:8080/f", wire: "http://[::1]:8080/f", display: "http://[::1]:8080/f"),
        URLCase(typed: "http://[FE80::1]/", wire: "http://[fe80::1]/", display: "http://[fe80::1]/"),
        URLCase(typed: "localhost:8080/x", wire: "http://localhost:8080/x", display: "http://localhost:8080/x"),
        URLCase(typed: "http://example.com:/", wire: "http://example.com/", display: "http://example.com/"),
        URLCase(typed: "example.com/?u=http://x", wire: "http://example.com/?u=http://x", display: "http://example.com/?u=http://x"),
        URLCase(typed: "http://example.com?q", wire: "http://example.com/?q", display: "http://example.com/?q"),
        URLCase(typed: "http://example.com/%E2%80%AEevil%C2%A0x%FF", wire: "http://example.com/%E2%80%AEevil%C2%A0x%FF",
                display: "http://example.com/%E2%80%AEevil%C2%A0x%FF"),
        URLCase(typed: "http://example.com/%c3%a9%2F", wire: "http://example.com/%c3%a9%2F", display: "http://example.com/é%2F"),
    ]

    @Test(arguments: urls)
    func typedURLs(_ c: URLCase) throws {
        let url = try TypedURL(c.typed)
        #expect(url.wire == c.wire)
        #expect(url.display == c.display)
        #expect(url.wire.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F })
    }

    @Test(arguments: [
        ("", "empty URL"),
        ("   ", "empty URL"),
        ("http://", "empty host name"),
        ("http://a b/", "contains a space"),
        ("http://exa_mple.com:99999/", "bad port number '99999'"),
        ("http://example.com:80a/", "bad port number '80a'"),
        ("http://example.com:-1/", "bad port number '-1'"),
        ("http://[::1/", "unclosed '[' in the host"),
        ("http://[::1]x/", "unexpected text after ']'"),
        ("http://[::g]/", "bad IPv6 address '[::g]'"),
        ("http://%FF.com/", "host is not valid UTF-8 once decoded"),
        ("http://a%2Fb.com/", "contains '/', which is not allowed in a host name"),
        ("http://bü\u{1}cher.de/", "contains a control character (U+1)"),
        ("http://-x.com.ü/", "string start/ends with forbidden hyphen"),
    ])
    func typedURLErrors(_ typed: String, _ reason: String) {
        #expect(throws: TypedURL.ParseError(url: typed, reason: reason)) { try TypedURL(typed) }
    }

    @Test func noDefaultScheme() {
        #expect(throws: TypedURL.ParseError(url: "example.com", reason: "no scheme (such as http://)")) {
            try TypedURL("example.com", defaultScheme: nil)
        }
        #expect(throws: TypedURL.ParseError.self) { try TypedURL(String(repeating: "a", count: TypedURL.maxBytes + 1)) }
    }

    @Test func partsAreExposed() throws {
        let url = try TypedURL("HTTPS://Bücher.example:8443/x")
        #expect(url.scheme == "https" && url.host == "xn--bcher-kva.example" && url.port == 8443)
    }
}
