import Testing
@testable import SwgetKit

@Suite struct UniqueNameTests {
    @Test(arguments: [
        ("index.html", 0, "index.html"),
        ("index.html", 1, "index-1.html"),
        ("index.html", 12, "index-12.html"),
        ("archive.tar.gz", 1, "archive-1.tar.gz"),
        ("archive.tar.bz2", 2, "archive-2.tar.bz2"),
        ("archive.tar.xz", 3, "archive-3.tar.xz"),
        ("archive.tar.zst", 4, "archive-4.tar.zst"),
        ("photo.JPG", 1, "photo-1.JPG"),
        ("README", 1, "README-1"),
        ("v1.2", 1, "v1-1.2"),
        ("my notes. draft", 1, "my notes. draft-1"),
        ("naïve.txt", 2, "naïve-2.txt"),
        ("index.html", -1, "index.html"),
    ])
    func candidates(_ name: String, _ attempt: Int, _ expected: String) {
        #expect(UniqueName.candidate(name, attempt: attempt) == expected)
    }

    @Test func staysWithin255BytesKeepingTheExtension() {
        let name = String(repeating: "é", count: 125) + ".tar.gz"  // 257 bytes would be too long already
        for attempt in [1, 9, 10, 99_999] {
            let candidate = UniqueName.candidate(name, attempt: attempt)
            #expect(candidate.utf8.count <= 255)
            #expect(candidate.hasSuffix("-\(attempt).tar.gz"))
            #expect(candidate.hasPrefix("éé"))
        }
        let noExtension = String(repeating: "x", count: 255)
        #expect(UniqueName.candidate(noExtension, attempt: 7) == String(repeating: "x", count: 253) + "-7")
    }

    @Test func candidatesAreDistinct() {
        let names = (0..<1000).map { UniqueName.candidate("file.txt", attempt: $0) }
        #expect(Set(names).count == names.count)
    }
}
