import Testing
@testable import SwgetKit

@Suite("data: URLs (RFC 2397)")
struct DataURLTests {
    @Test(arguments: [
        ("data:,A%20brief%20note", "text/plain;charset=US-ASCII", Array("A brief note".utf8)),
        ("data:text/plain;base64,SGVsbG8sIFdvcmxkIQ==", "text/plain", Array("Hello, World!".utf8)),
        ("data:text/plain;base64,SGVsbG8sIFdvcmxkIQ", "text/plain", Array("Hello, World!".utf8)),
        ("DATA:Text/HTML;charset=utf-8,%3Cb%3Ehi%3C%2Fb%3E", "text/html;charset=utf-8", Array("<b>hi</b>".utf8)),
        ("data:;charset=utf-8,%C3%A9", "text/plain;charset=utf-8", [0xC3, 0xA9]),
        ("data:;base64,AAEC", "text/plain;charset=US-ASCII", [0, 1, 2]),
        ("data:image/png;BASE64,iVBO%20Rw0K", "image/png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A]),
        ("data:,", "text/plain;charset=US-ASCII", []),
        ("data:,a,b", "text/plain;charset=US-ASCII", Array("a,b".utf8)),
        ("data:application/octet-stream;x=1;base64,/w==", "application/octet-stream;x=1", [0xFF]),
    ])
    func reads(_ text: String, _ type: String, _ bytes: [UInt8]) throws {
        let url = try DataURL(text)
        #expect(url.contentType == type)
        #expect(url.bytes == bytes)
    }

    @Test(arguments: [
        ("data:text/plain", DataURL.Failure.missingComma), ("data", .notDataURL), ("http://x/,y", .notDataURL),
        ("data:,%", .badPercentEncoding), ("data:,%4", .badPercentEncoding), ("data:,%G0", .badPercentEncoding),
        ("data:%ZZ,x", .badPercentEncoding), ("data:;base64,****", .badBase64), ("data:;base64,A", .badBase64),
        ("data:%FF%FE,x", .badPercentEncoding),
    ])
    func refuses(_ text: String, _ failure: DataURL.Failure) {
        #expect(throws: failure) { try DataURL(text) }
    }

    @Test func refusesHugeURLs() {
        let huge = "data:," + String(repeating: "a", count: DataURL.maxLength)
        #expect(throws: DataURL.Failure.tooLong) { try DataURL(huge) }
    }

    @Test func percentDecodingAtTheEdges() throws {
        #expect(try DataURL.percentDecoded(Array("%41%42".utf8)[...]) == Array("AB".utf8))
        #expect(try DataURL.percentDecoded(Array("a%00b".utf8)[...]) == [0x61, 0, 0x62])
        #expect(throws: DataURL.Failure.badPercentEncoding) { try DataURL.percentDecoded(Array("%4".utf8)[...]) }
    }
}
