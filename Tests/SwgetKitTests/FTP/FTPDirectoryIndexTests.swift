import Foundation
import Testing
@testable import SwgetKit

@Suite("FTP directory index pages")
struct FTPDirectoryIndexTests {
    static let time = FTPTimestamp(timeVal: "20240102030405")

    @Test func listsEntriesWithLinks() {
        let entries = [
            FTPListEntry(name: "sub", kind: .directory, modified: Self.time),
            FTPListEntry(name: "a file.iso", kind: .file, size: 1234, modified: Self.time),
            FTPListEntry(name: "link", kind: .symlink(target: "a file.iso")),
        ]
        let page = String(decoding: FTPDirectoryIndex.html(entries: entries, scheme: "ftp", authority: "h:21", directory: "pub/x y"), as: UTF8.self)
        #expect(page.contains("<title>Index of /pub/x y on h:21</title>"))
        #expect(page.contains("2024 Jan 02 03:04  File        <a href=\"ftp://h:21/pub/x%20y/a%20file.iso\">a file.iso</a>  (1234 bytes)"))
        #expect(page.contains("<a href=\"ftp://h:21/pub/x%20y/sub/\">sub/</a>"))
        #expect(page.contains("<a href=\"ftp://h:21/pub/x%20y/link\">link</a> -> a file.iso"))
        // Sorted by name.
        let order = ["a%20file.iso", "link", "sub/"].compactMap { page.range(of: $0)?.lowerBound }
        #expect(order.count == 3 && order == order.sorted())
    }

    @Test(arguments: ["<script>alert(1)</script>", "\"onmouseover=x", "a'b", "x&y", "bell\u{7}", "é漢"])
    func hostileNamesStayInert(_ name: String) {
        let page = String(decoding: FTPDirectoryIndex.html(entries: [FTPListEntry(name: name, kind: .file, size: 1)], scheme: "ftp",
                                                           authority: "h:21", directory: ""), as: UTF8.self)
        let body = page.components(separatedBy: "<pre>").last ?? ""
        #expect(!body.contains("<script"))
        #expect(!body.contains("\"onmouseover"))
        #expect(!body.contains("\u{7}"))
        #expect(body.contains("href=\"ftp://h:21/" + FTPDirectoryIndex.percentEncode(name) + "\""))
    }

    @Test func percentEncodesAllButUnreserved() {
        #expect(FTPDirectoryIndex.percentEncode("a-b_c.d~e") == "a-b_c.d~e")
        #expect(FTPDirectoryIndex.percentEncode("a b/c?#%") == "a%20b%2Fc%3F%23%25")
        #expect(FTPDirectoryIndex.percentEncode("é") == "%C3%A9")
    }
}
