import Testing
@testable import SwgetKit

@Suite struct FilenameSanitizerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let input: String
        let expected: String?
        var testDescription: String { input.debugDescription }
    }

    static let cases: [Case] = [
        Case(input: "report.pdf", expected: "report.pdf"),
        Case(input: "naïve file.txt", expected: "naïve file.txt"),
        // Path components: only the last one survives.
        Case(input: "../../etc/passwd", expected: "passwd"),
        Case(input: "..\\..\\boot.ini", expected: "boot.ini"),
        Case(input: "/abs/path", expected: "path"),
        Case(input: "C:\\Users\\me\\file.txt", expected: "file.txt"),
        Case(input: "dir/", expected: nil),
        Case(input: "a/../", expected: nil),
        Case(input: "a/..", expected: nil),
        // Control characters are removed, not replaced.
        Case(input: "a\u{0}b", expected: "ab"),
        Case(input: "\u{1b}[31mred", expected: "[31mred"),
        Case(input: "tab\there\nnewline\r", expected: "tabherenewline"),
        Case(input: "del\u{7f}c1\u{85}\u{9b}x", expected: "delc1x"),
        Case(input: "evil\u{202E}txt.exe", expected: "eviltxt.exe"),
        Case(input: "\u{0}\u{1}\u{1f}", expected: nil),
        // Leading dots and surrounding whitespace.
        Case(input: ".bashrc", expected: "bashrc"),
        Case(input: "..hidden", expected: "hidden"),
        Case(input: " . .x ", expected: "x"),
        Case(input: "  spaced name.txt  ", expected: "spaced name.txt"),
        Case(input: "\u{00A0}nbsp\u{3000}", expected: "nbsp"),
        Case(input: "trailing.", expected: "trailing."),
        Case(input: "...", expected: nil),
        Case(input: "..", expected: nil),
        Case(input: ".", expected: nil),
        Case(input: "", expected: nil),
        Case(input: "   ", expected: nil),
        Case(input: "/", expected: nil),
        Case(input: "\\", expected: nil),
        // Names with a "/" that came from a decoded %2F never create directories.
        Case(input: "a/b.txt", expected: "b.txt"),
    ]

    @Test(arguments: cases)
    func sanitizes(_ c: Case) {
        #expect(FilenameSanitizer.sanitize(c.input) == c.expected)
    }

    @Test func cutsLongNamesOnACharacterBoundaryKeepingTheExtension() throws {
        let longAccents = String(repeating: "é", count: 150)  // 300 bytes
        let cut = try #require(FilenameSanitizer.sanitize(longAccents))
        #expect(cut.utf8.count <= 255)
        #expect(cut.utf8.count == 254)
        #expect(cut == String(repeating: "é", count: 127))

        let withExtension = try #require(FilenameSanitizer.sanitize(longAccents + ".txt"))
        #expect(withExtension.utf8.count <= 255)
        #expect(withExtension.hasSuffix(".txt"))
        #expect(withExtension == String(repeating: "é", count: 125) + ".txt")

        let archive = try #require(FilenameSanitizer.sanitize(String(repeating: "a", count: 300) + ".tar.gz"))
        #expect(archive.utf8.count == 255)
        #expect(archive.hasSuffix(".tar.gz"))
    }

    @Test func neverSplitsAGraphemeCluster() throws {
        let family = "👨‍👩‍👧‍👦"  // 25 bytes, one Character
        let name = try #require(FilenameSanitizer.sanitize(String(repeating: family, count: 20)))
        #expect(name.utf8.count <= 255)
        #expect(name == String(repeating: family, count: 10))
    }

    @Test func oneHugeCharacterIsCutBetweenScalars() throws {
        let huge = "e" + String(repeating: "\u{301}", count: 200)  // one Character of 401 bytes
        let name = try #require(FilenameSanitizer.sanitize(huge))
        #expect(name.utf8.count <= 255)
        #expect(name.unicodeScalars.first == "e")
        #expect(name.unicodeScalars.count == 128)
    }

    @Test(arguments: [
        ("archive.tar.gz", "archive", ".tar.gz"), ("a.TAR.XZ", "a", ".TAR.XZ"), ("x.tar.zst", "x", ".tar.zst"),
        ("index.html", "index", ".html"), ("README", "README", ""), (".tar.gz", ".tar", ".gz"),
        ("my notes. draft", "my notes. draft", ""), ("v1.2", "v1", ".2"), ("dot.", "dot.", ""),
        ("tar.gz", "tar", ".gz"),
    ])
    func splitsExtensions(_ name: String, _ stem: String, _ ext: String) {
        let parts = FilenameSanitizer.splitExtension(name)
        #expect(String(parts.stem) == stem)
        #expect(String(parts.ext) == ext)
    }
}
