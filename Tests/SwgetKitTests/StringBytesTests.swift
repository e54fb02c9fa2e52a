#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import SwgetKit

/// The in-place byte searches (String+Bytes.swift) answer as the UTF-8 view's own searches do.
@Suite("Byte searches over a string's UTF-8 storage")
struct StringBytesTests {
    static let texts = ["", "/", "a/b/c", "dir/ä/ö.txt", "no slash", "/lead", "trail/", "x\u{301}/y", "🙂/🙃", String(repeating: "ab/", count: 300)]

    @Test(arguments: texts)
    func stringsAgreeWithTheView(_ text: String) {
        let slash = UInt8(ascii: "/")
        #expect(text.containsByte(slash) == text.utf8.contains(slash))
        #expect(text.firstIndex(ofByte: slash) == text.utf8.firstIndex(of: slash))
        #expect(text.lastIndex(ofByte: slash) == text.utf8.lastIndex(of: slash))
        #expect(text.containsByte(where: { $0 > 0x7F }) == text.utf8.contains(where: { $0 > 0x7F }))
    }

    @Test(arguments: texts)
    func substringsAgreeWithTheView(_ text: String) {
        // A slice that starts past the first byte: its indices are the base string's.
        let slice = text.dropFirst()
        let slash = UInt8(ascii: "/")
        #expect(slice.firstIndex(ofByte: slash) == slice.utf8.firstIndex(of: slash))
        #expect(slice.lastIndex(ofByte: slash) == slice.utf8.lastIndex(of: slash))
        if let index = slice.lastIndex(ofByte: slash) {
            #expect(String(slice[slice.utf8.index(after: index)...]) == String(slice.split(separator: "/", omittingEmptySubsequences: false).last ?? ""))
        }
    }
}

/// A target's origin is read from the URL's parts once; it must be the origin the URL has.
@Suite struct HTTPTargetOriginTests {
    @Test(arguments: [
        "http://example.org/a", "HTTPS://Example.ORG/b", "http://example.org:8080/", "https://example.org:443/x",
        "http://[::1]:9000/", "http://127.0.0.1/", "https://a.b.example/?q=1", "http://EXAMPLE.org:80/",
    ])
    func theOriginIsTheURLs(_ string: String) throws {
        let url = try #require(URL(string: string))
        #expect(try HTTPTarget(url).origin == Origin(url))
    }
}

/// `URL.hasScheme` reads the scheme from the URL's string; it must agree with `URL.scheme`.
@Suite struct URLSchemeTests {
    static let schemes: [StaticString] = ["http", "https", "ftp", "ftps", "data", "file"]

    @Test(arguments: [
        "http://example.org/", "HTTP://example.org/", "https://a/b", "HtTpS://a", "ftp://h/x", "FTPS://h/",
        "data:,hi", "DATA:text/plain,x", "file:///tmp/a", "httpx://a/", "http:", "https:x", "mailto:a@b",
        "http+unix://a", "ftp.example.org:21/x",
    ])
    func theSchemeAgreesWithURLScheme(_ string: String) throws {
        let url = try #require(URL(string: string))
        for scheme in Self.schemes {
            #expect(url.hasScheme(scheme) == (url.scheme?.lowercased() == "\(scheme)"), "\(string) vs \(scheme)")
        }
    }

    @Test func aRelativeURLHasItsBasesScheme() throws {
        let base = try #require(URL(string: "HTTPS://example.org/dir/"))
        let url = try #require(URL(string: "file.txt", relativeTo: base))
        #expect(url.hasScheme("https") == (url.scheme?.lowercased() == "https"))
        #expect(!url.hasScheme("http"))
    }
}
