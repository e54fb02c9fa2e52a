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
        // Zero-width characters and the BOM are removed like the bidi controls.
        Case(input: "a\u{200B}b\u{200C}c\u{200D}d\u{2060}e\u{FEFF}.txt", expected: "abcde.txt"),
        Case(input: "\u{FEFF}report.pdf", expected: "report.pdf"),
        Case(input: "rep\u{200B}ort.pdf\u{200B}", expected: "report.pdf"),
        Case(input: "\u{200B}.bashrc", expected: "bashrc"),  // no hiding a leading dot behind one
        Case(input: "\u{FEFF}\u{200B}\u{2060}", expected: nil),
        Case(input: "bidi\u{2067}\u{2069}\u{061C}.txt", expected: "bidi.txt"),
        // Never swget's own bookkeeping: the last dot of a reserved suffix becomes "_".
        Case(input: "x.swget", expected: "x_swget"),
        Case(input: "important.txt.swget", expected: "important.txt_swget"),
        Case(input: "y.part", expected: "y_part"),
        Case(input: "Y.PART", expected: "Y_PART"),
        Case(input: "z.SwGeT", expected: "z_SwGeT"),
        Case(input: "../state/x.swget", expected: "x_swget"),
        Case(input: "x.part  ", expected: "x_part"),
        Case(input: "x.swget\u{200B}", expected: "x_swget"),
        Case(input: "x.sw\u{200D}get", expected: "x_swget"),
        Case(input: "x.part\u{0}", expected: "x_part"),
        Case(input: ".swget", expected: "swget"),
        Case(input: "..part", expected: "part"),
        Case(input: "a.part.swget", expected: "a.part_swget"),
        Case(input: "x.parts", expected: "x.parts"),
        Case(input: "x.part.txt", expected: "x.part.txt"),
        Case(input: "xpart", expected: "xpart"),
        Case(input: "x.swget.", expected: "x.swget."),
        Case(input: "é.part", expected: "é_part"),
        Case(input: "x.pärt", expected: "x.pärt"),
    ]

    @Test(arguments: cases)
    func sanitizes(_ c: Case) {
        #expect(FilenameSanitizer.sanitize(c.input) == c.expected)
    }

    /// The fast path for plain ASCII names takes only names the rules return unchanged.
    @Test(arguments: [
        "f0000.bin", "report.pdf", "a", "README", "x.part", "x.PaRt", "x.swget", "x.SWGET", "a.b.part", "x.part.bin", "x.partx",
        "x.par", "part", ".part", "x.swge",
        ".hidden", "..", ".", " lead", "trail ", "in side", "a/b", "a\\b", "tab\tname", "del\u{7F}",
        "caf\u{E9}.txt", "~user", "name.", "q?x=1&y=2", String(repeating: "n", count: 255),
        String(repeating: "n", count: 256) + ".bin", "",
    ])
    func plainNamesTakeTheFastPathOnlyWhenTheRulesAgree(_ name: String) {
        if let fast = FilenameSanitizer.plainName(name) {
            #expect(fast == name)
            #expect(FilenameSanitizer.sanitizeByTheRules(name) == name)
        }
        #expect(FilenameSanitizer.sanitize(name) == FilenameSanitizer.sanitizeByTheRules(name))
    }

    @Test func commonNamesTakeTheFastPath() {
        for name in ["f0000.bin", "report.pdf", "README", "x.part.bin", "q?x=1&y=2"] {
            #expect(FilenameSanitizer.plainName(name) == name)
        }
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

    /// A name cut to NAME_MAX keeps its extension, so the reserved-suffix rule applies after the cut.
    @Test(arguments: [".part", ".swget", ".PART"])
    func longNamesNeverKeepAReservedSuffix(_ suffix: String) throws {
        let name = try #require(FilenameSanitizer.sanitize(String(repeating: "a", count: 300) + suffix))
        #expect(name.utf8.count == 255)
        #expect(name.hasSuffix("_" + suffix.dropFirst()))
        let cut = try #require(FilenameSanitizer.sanitize(String(repeating: "é", count: 200) + suffix))
        #expect(cut.utf8.count <= 255)
        #expect(cut.hasSuffix("é_" + suffix.dropFirst()))
    }

    /// The rule on its own, as the destination code applies it to a decoded name (`x.part.gz`).
    @Test(arguments: [
        ("x.part", "x_part"), ("x.swget", "x_swget"), ("X.Part", "X_Part"), ("x.part.gz", "x.part.gz"),
        ("part", "part"), (".part", "_part"), ("é.swget", "é_swget"), ("x.txt", "x.txt"),
    ])
    func reservedSuffixes(_ name: String, _ expected: String) {
        #expect(FilenameSanitizer.withoutReservedSuffix(name) == expected)
        #expect(FilenameSanitizer.withoutReservedSuffix(BodyDecoding.decodedName(name + ".gz")) == expected)
    }

    @Test func neverSplitsAGraphemeCluster() throws {
        let thumb = "👍🏽"  // 8 bytes, one Character (emoji + skin-tone modifier)
        let name = try #require(FilenameSanitizer.sanitize(String(repeating: thumb, count: 40)))
        #expect(name.utf8.count <= 255)
        #expect(name == String(repeating: thumb, count: 31))
        let ring = "\u{E5}\u{302}\u{303}"  // 6 bytes, one Character
        let cut = try #require(FilenameSanitizer.sanitize(String(repeating: ring, count: 50)))
        #expect(cut == String(repeating: ring, count: 42))
    }

    /// Zero-width joiners are invisible format characters like the others: an emoji ZWJ
    /// sequence keeps its members, side by side.
    @Test func zeroWidthJoinersAreRemovedFromEmojiSequencesToo() {
        let family = "👨\u{200D}👩\u{200D}👧\u{200D}👦"  // one Character joined by U+200D
        #expect(FilenameSanitizer.sanitize(family + ".png") == "👨👩👧👦.png")
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
