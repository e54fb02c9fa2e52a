import Testing
@testable import SwgetKit

@Suite("FTP globbing (wget, fnmatch without flags)")
struct FTPGlobTests {
    @Test(arguments: [
        ("*.iso", "debian.iso", true),
        ("*.iso", ".iso", true),
        ("*.iso", ".hidden.iso", true),
        ("*.iso", "debian.iso.sig", false),
        ("*", "", true),
        ("*", "anything at all", true),
        ("?", "a", true),
        ("?", "", false),
        ("?", "ab", false),
        ("?", "é", true),
        ("file?.txt", "file1.txt", true),
        ("file?.txt", "file10.txt", false),
        ("[a-c]*", "banana", true),
        ("[a-c]*", "date", false),
        ("[!a-c]*", "date", true),
        ("[^a-c]*", "apple", false),
        ("[]]", "]", true),
        ("[!]]", "a", true),
        ("[!]]", "]", false),
        ("[a-]", "-", true),
        ("[z-a]", "m", false),
        ("[abc", "[abc", true),
        ("[abc", "a", false),
        ("a\\*b", "a*b", true),
        ("a\\*b", "axb", false),
        ("[\\]]", "]", true),
        ("*a*b*c*", "xxaxxbxxcxx", true),
        ("*a*b*c*", "xxaxxcxxbxx", false),
        ("a*b", "ab", true),
        ("a*b", "abab", true),
        ("a*b", "aba", false),
        ("**", "x", true),
        ("ls-lR.gz", "ls-lR.gz", true),
        ("ls-lR.gz", "LS-LR.GZ", false),
        ("été-*.txt", "été-1.txt", true),
        ("[é]", "é", true),
    ])
    func matches(_ pattern: String, _ name: String, _ expected: Bool) throws {
        let glob = try #require(FTPGlob(pattern))
        #expect(glob.matches(name) == expected)
    }

    @Test func ignoringCase() throws {
        let glob = try #require(FTPGlob("*.ISO", ignoresCase: true))
        #expect(glob.matches("debian.iso"))
        #expect(try #require(FTPGlob("[A-C]x", ignoresCase: true)).matches("bx"))
        #expect(try #require(FTPGlob("[a-c]x", ignoresCase: true)).matches("Bx"))
        #expect(!(try #require(FTPGlob("[a-c]x")).matches("Bx")))
        #expect(!(try #require(FTPGlob("*.ISO")).matches("debian.iso")))
    }

    /// Patterns that make naive backtracking exponential finish at once.
    @Test func pathologicalPatternsAreLinearish() throws {
        let glob = try #require(FTPGlob(String(repeating: "*a", count: 500) + "b"))
        #expect(!glob.matches(String(repeating: "a", count: 4000)))
        #expect(glob.matches(String(repeating: "a", count: 600) + "b"))
    }

    @Test func bounds() throws {
        #expect(FTPGlob(String(repeating: "x", count: FTPGlob.maxPatternLength + 1)) == nil)
        let glob = try #require(FTPGlob("*"))
        #expect(glob.matches(String(repeating: "n", count: FTPGlob.maxNameLength)))
        #expect(!glob.matches(String(repeating: "n", count: FTPGlob.maxNameLength + 1)))
    }

    @Test(arguments: [
        ("/pub/*.iso", true), ("/pub/file?.txt", true), ("/pub/[ab].txt", true), ("/pub/a]b", true),
        ("/pub/file.iso", false), ("/pub[1]/file", false), ("/pub/", false), ("", false), ("*", true),
    ])
    func pathWildcards(_ path: String, _ expected: Bool) {
        #expect(FTPGlob.pathHasWildcards(path) == expected)
    }
}
