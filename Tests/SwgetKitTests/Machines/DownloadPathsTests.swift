import Testing
@testable import SwgetKit

/// The one layout of NAME, NAME.part and NAME.swget: short names, names of 250–255 bytes whose
/// part and state share one shortened base, and state files that must never name another file.
@Suite("Download paths (pure)")
struct DownloadPathsTests {
    static func bytes(_ name: String) -> Int { name.utf8.count }

    // MARK: - layout

    struct LayoutCase: CustomTestStringConvertible, Sendable {
        let directory: String
        let name: String
        let final: String
        let part: String
        let state: String
        var testDescription: String { "\(directory.debugDescription) + \(name.prefix(20).debugDescription) (\(name.utf8.count) bytes)" }
    }

    static let a245 = String(repeating: "a", count: 245)
    static let a249 = String(repeating: "a", count: 249)

    static let layouts: [LayoutCase] = [
        LayoutCase(directory: "", name: "f.txt", final: "f.txt", part: "f.txt.part", state: "f.txt.swget"),
        LayoutCase(directory: "/tmp", name: "f", final: "/tmp/f", part: "/tmp/f.part", state: "/tmp/f.swget"),
        LayoutCase(directory: "/tmp/", name: "f", final: "/tmp/f", part: "/tmp/f.part", state: "/tmp/f.swget"),
        LayoutCase(directory: "/", name: "f", final: "/f", part: "/f.part", state: "/f.swget"),
        LayoutCase(directory: "rel/dir", name: ".hidden", final: "rel/dir/.hidden", part: "rel/dir/.hidden.part", state: "rel/dir/.hidden.swget"),
        LayoutCase(directory: "d", name: "naïve ☃.tar.gz", final: "d/naïve ☃.tar.gz", part: "d/naïve ☃.tar.gz.part",
                   state: "d/naïve ☃.tar.gz.swget"),
        LayoutCase(directory: "dé/", name: "ß", final: "dé/ß", part: "dé/ß.part", state: "dé/ß.swget"),
        LayoutCase(directory: "☃", name: "é", final: "☃/é", part: "☃/é.part", state: "☃/é.swget"),
        // 249 bytes: the longest name that is its own base.
        LayoutCase(directory: "d", name: a249, final: "d/" + a249, part: "d/" + a249 + ".part", state: "d/" + a249 + ".swget"),
        // 250 and 255 bytes: shortened to 249, keeping the extension.
        LayoutCase(directory: "d", name: String(repeating: "a", count: 246) + ".bin", final: "d/" + String(repeating: "a", count: 246) + ".bin",
                   part: "d/" + a245 + ".bin.part", state: "d/" + a245 + ".bin.swget"),
        LayoutCase(directory: "d", name: String(repeating: "a", count: 251) + ".bin", final: "d/" + String(repeating: "a", count: 251) + ".bin",
                   part: "d/" + a245 + ".bin.part", state: "d/" + a245 + ".bin.swget"),
        LayoutCase(directory: "", name: String(repeating: "b", count: 255), final: String(repeating: "b", count: 255),
                   part: String(repeating: "b", count: 249) + ".part", state: String(repeating: "b", count: 249) + ".swget"),
    ]

    @Test(arguments: layouts)
    func layout(_ c: LayoutCase) throws {
        let paths = try #require(DownloadPaths(directory: c.directory, name: c.name))
        #expect(paths.finalPath == c.final)
        #expect(paths.partPath == c.part)
        #expect(paths.statePath == c.state)
    }

    /// Names of every length near the limit, ASCII and multi-byte, with and without extension.
    static let longNames: [String] = {
        var names: [String] = []
        for total in 245...255 {
            names.append(String(repeating: "x", count: total))
            names.append(String(repeating: "x", count: total - 4) + ".iso")
            names.append(String(repeating: "é", count: (total - 7) / 2) + ".tar.gz")
            names.append(String(repeating: "€", count: total / 3))                          // 3-byte characters
            names.append(String(repeating: "👍🏽", count: total / 8) + ".png")                // 8-byte grapheme clusters
        }
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }()

    @Test(arguments: longNames)
    func partAndStateShareTheBase(_ name: String) throws {
        let paths = try #require(DownloadPaths(directory: "/d", name: name))
        let base = paths.base
        #expect(Self.bytes(base) <= DownloadPaths.maxBaseBytes)
        #expect(Self.bytes(base + ".part") <= 255 && Self.bytes(base + ".swget") <= 255)
        #expect(paths.partPath == "/d/" + base + ".part")
        #expect(paths.statePath == "/d/" + base + ".swget")
        #expect(paths.finalPath == "/d/" + name)
        if Self.bytes(name) <= DownloadPaths.maxBaseBytes {
            #expect(base == name)
        } else {
            // Cut between characters, the extension kept when there is one.
            let ext = FilenameSanitizer.splitExtension(name).ext
            #expect(base.hasSuffix(ext))
            #expect(name.hasPrefix(String(base.dropLast(ext.count))))
            #expect(base.unicodeScalars.allSatisfy { $0 != "\u{FFFD}" })
        }
        // The state beside the part is recognised as this download's, and only its.
        let stateName = String(paths.statePath.dropFirst(3))
        #expect(DownloadPaths(stateFileName: stateName, in: "/d", finalName: name) == paths)
    }

    // MARK: - names that are not one component

    @Test(arguments: ["", ".", "..", "a/b", "/", "a/", "/a", "../x", "a\u{0}b", "\u{0}"])
    func notAName(_ name: String) {
        #expect(DownloadPaths(directory: "/d", name: name) == nil)
    }

    struct FinalPathCase: CustomTestStringConvertible, Sendable {
        let path: String
        let directory: String?
        let name: String?
        var testDescription: String { path.debugDescription }
    }

    static let finalPaths: [FinalPathCase] = [
        FinalPathCase(path: "f", directory: "", name: "f"),
        FinalPathCase(path: "dir/f", directory: "dir", name: "f"),
        FinalPathCase(path: "/f", directory: "/", name: "f"),
        FinalPathCase(path: "/a/b/c.txt", directory: "/a/b", name: "c.txt"),
        FinalPathCase(path: "./f", directory: ".", name: "f"),
        FinalPathCase(path: "../f", directory: "..", name: "f"),
        FinalPathCase(path: "", directory: nil, name: nil),
        FinalPathCase(path: "dir/", directory: nil, name: nil),
        FinalPathCase(path: "/", directory: nil, name: nil),
        FinalPathCase(path: ".", directory: nil, name: nil),
        FinalPathCase(path: "..", directory: nil, name: nil),
        FinalPathCase(path: "dir/..", directory: nil, name: nil),
        FinalPathCase(path: "dir/.", directory: nil, name: nil),
        // Cut at the last slash byte: a combining mark after it stays with the name, and a
        // multi-byte directory stays whole.
        FinalPathCase(path: "dir/\u{301}x", directory: "dir", name: "\u{301}x"),
        FinalPathCase(path: "é/ü/f.txt", directory: "é/ü", name: "f.txt"),
        FinalPathCase(path: "/é", directory: "/", name: "é"),
    ]

    @Test(arguments: finalPaths)
    func finalPath(_ c: FinalPathCase) {
        let paths = DownloadPaths(finalPath: c.path)
        #expect(paths?.directory == c.directory)
        #expect(paths?.name == c.name)
    }

    @Test("a renamed layout stays in its directory and refuses paths")
    func renamed() {
        let paths = DownloadPaths(directory: "/d", name: "f.txt")
        #expect(paths?.renamed("f.1.txt")?.partPath == "/d/f.1.txt.part")
        #expect(paths?.renamed("../f.txt") == nil)
        #expect(paths?.renamed("..") == nil)
    }

    // MARK: - state files found on disk

    struct StateCase: CustomTestStringConvertible, Sendable {
        let name: String
        let stateFileName: String
        let finalName: String
        let accepted: Bool
        var testDescription: String { name }
    }

    static let long = String(repeating: "L", count: 251) + ".bin"          // 255 bytes
    static let longBase = String(repeating: "L", count: 245) + ".bin"      // 249 bytes

    static let states: [StateCase] = [
        StateCase(name: "its own state", stateFileName: "f.txt.swget", finalName: "f.txt", accepted: true),
        StateCase(name: "a state naming another file", stateFileName: "f.txt.swget", finalName: "g.txt", accepted: false),
        StateCase(name: "a state naming a file elsewhere", stateFileName: "f.txt.swget", finalName: "../f.txt", accepted: false),
        StateCase(name: "a state naming an absolute path", stateFileName: "f.txt.swget", finalName: "/etc/f.txt", accepted: false),
        StateCase(name: "a state naming the directory", stateFileName: "..swget", finalName: ".", accepted: false),
        StateCase(name: "a state naming the parent", stateFileName: "...swget", finalName: "..", accepted: false),
        StateCase(name: "a state naming nothing", stateFileName: ".swget", finalName: "", accepted: false),
        StateCase(name: "not a state file", stateFileName: "f.txt.part", finalName: "f.txt", accepted: false),
        StateCase(name: "a case-different name", stateFileName: "F.txt.swget", finalName: "f.txt", accepted: false),
        StateCase(name: "a long name's state, shortened", stateFileName: longBase + ".swget", finalName: long, accepted: true),
        StateCase(name: "a long name's state, not shortened (could not exist)", stateFileName: long + ".swget", finalName: long,
                  accepted: false),
        StateCase(name: "a name over NAME_MAX that shortens to the state's base",
                  stateFileName: longBase + ".swget", finalName: String(repeating: "L", count: 300) + ".bin", accepted: false),
        StateCase(name: "a name with a NUL byte past the shortened base",
                  stateFileName: longBase + ".swget", finalName: String(repeating: "L", count: 250) + "\u{0}.bin", accepted: false),
    ]

    @Test(arguments: states)
    func stateFile(_ c: StateCase) {
        let paths = DownloadPaths(stateFileName: c.stateFileName, in: "/d", finalName: c.finalName)
        #expect((paths != nil) == c.accepted)
        if let paths {
            #expect(paths.statePath == "/d/" + c.stateFileName)
            #expect(paths.name == c.finalName)
        }
    }
}
