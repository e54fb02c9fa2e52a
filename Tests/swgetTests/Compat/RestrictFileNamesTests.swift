import Testing
@testable import SwgetCLI

@Suite("--restrict-file-names (wget's modes)")
struct RestrictFileNamesTests {
    struct ModeCase: CustomTestStringConvertible, Sendable {
        let modes: String
        let system: FileNameRestriction.System
        let control: Bool
        let ascii: Bool
        let letterCase: FileNameRestriction.LetterCase
        var testDescription: String { modes }
    }

    static let modes: [ModeCase] = [
        ModeCase(modes: "unix", system: .unix, control: true, ascii: false, letterCase: .unchanged),
        ModeCase(modes: "windows", system: .windows, control: true, ascii: false, letterCase: .unchanged),
        ModeCase(modes: "nocontrol", system: .unix, control: false, ascii: false, letterCase: .unchanged),
        ModeCase(modes: "ascii", system: .unix, control: true, ascii: true, letterCase: .unchanged),
        ModeCase(modes: "lowercase", system: .unix, control: true, ascii: false, letterCase: .lowercase),
        ModeCase(modes: "uppercase", system: .unix, control: true, ascii: false, letterCase: .uppercase),
        ModeCase(modes: "windows,lowercase", system: .windows, control: true, ascii: false, letterCase: .lowercase),
        ModeCase(modes: "unix,nocontrol,ascii,uppercase", system: .unix, control: false, ascii: true, letterCase: .uppercase),
        // A later mode of the same kind wins, as in wget.
        ModeCase(modes: "windows,unix", system: .unix, control: true, ascii: false, letterCase: .unchanged),
        ModeCase(modes: "lowercase,uppercase", system: .unix, control: true, ascii: false, letterCase: .uppercase),
        ModeCase(modes: "ascii,", system: .unix, control: true, ascii: true, letterCase: .unchanged),
        ModeCase(modes: "Windows", system: .windows, control: true, ascii: false, letterCase: .unchanged),
    ]

    @Test(arguments: modes)
    func parsesModes(_ c: ModeCase) throws {
        let r = try FileNameRestriction(modes: c.modes)
        #expect(r.system == c.system)
        #expect(r.escapesControlCharacters == c.control)
        #expect(r.asciiOnly == c.ascii)
        #expect(r.letterCase == c.letterCase)
    }

    @Test(arguments: ["", "vms", "unix,,ascii", ",", "none", "unix windows", "lower", String(repeating: "x", count: 10_000)])
    func rejectsUnknownModes(_ modes: String) {
        #expect(throws: FileNameRestriction.ParseError.self) { try FileNameRestriction(modes: modes) }
    }

    @Test func errorNamesTheModeAndTheChoices() {
        #expect(throws: FileNameRestriction.ParseError(mode: "vms")) { try FileNameRestriction(modes: "unix,vms") }
        let text = FileNameRestriction.ParseError(mode: "vms").description
        #expect(text == "invalid restriction 'vms', use [unix|windows],[lowercase|uppercase],[nocontrol],[ascii]")
    }

    struct EscapeCase: CustomTestStringConvertible, Sendable {
        let label: String
        let modes: String
        let input: [UInt8]
        let expected: String
        var testDescription: String { label }
        init(_ label: String, _ modes: String, _ input: String, _ expected: String) {
            self.init(label, modes, Array(input.utf8), expected)
        }
        init(_ label: String, _ modes: String, _ input: [UInt8], _ expected: String) {
            self.label = label
            self.modes = modes
            self.input = input
            self.expected = expected
        }
    }

    static let gnosis = "γνωσις"
    static let escapeCases: [EscapeCase] = [
        // wget's tests: Test-Restrict-Lowercase, Test-Restrict-Uppercase, Test-restrict-ascii.
        EscapeCase("Test-Restrict-Lowercase", "lowercase", "SomePage.html", "somepage.html"),
        EscapeCase("Test-Restrict-Uppercase", "uppercase", "SomePage.html", "SOMEPAGE.HTML"),
        EscapeCase("Test-restrict-ascii", "ascii", gnosis + ".html", "%CE%B3%CE%BD%CF%89%CF%83%CE%B9%CF%82.html"),
        EscapeCase("UTF-8 kept by default", "unix", gnosis + ".html", gnosis + ".html"),
        // unix: only / and NUL (and controls unless nocontrol).
        EscapeCase("unix slash", "unix", "a/b", "a%2Fb"),
        EscapeCase("unix NUL", "unix", [0x61, 0x00, 0x62], "a%00b"),
        EscapeCase("unix windows chars kept", "unix", #"a\b|c:d?e"f*g<h>i"#, #"a\b|c:d?e"f*g<h>i"#),
        EscapeCase("unix percent kept", "unix", "100%", "100%"),
        EscapeCase("unix controls", "unix", "a\u{01}b\u{1F}c\u{7F}d\te", "a%01b%1Fc%7Fd%09e"),
        EscapeCase("nocontrol keeps controls", "nocontrol", "a\u{01}b\u{7F}c", "a\u{01}b\u{7F}c"),
        EscapeCase("nocontrol still escapes slash and NUL", "nocontrol", [0x2F, 0x00], "%2F%00"),
        // windows: \ | / : ? " * < > as well.
        EscapeCase("windows chars", "windows", #"a\b|c/d:e?f"g*h<i>j"#, "a%5Cb%7Cc%2Fd%3Ae%3Ff%22g%2Ah%3Ci%3Ej"),
        EscapeCase("windows controls", "windows", "a\u{01}b", "a%01b"),
        EscapeCase("windows,nocontrol leaves controls", "windows,nocontrol", "a\u{01}b", "a\u{01}b"),
        // C1 and bidirectional controls (as characters), swget's reading of wget's 128–159.
        EscapeCase("C1 control", "unix", "a\u{85}b", "a%C2%85b"),
        EscapeCase("bidi override", "unix", "evil\u{202E}txt.exe", "evil%E2%80%AEtxt.exe"),
        EscapeCase("nocontrol keeps bidi", "nocontrol", "a\u{202E}b", "a\u{202E}b"),
        EscapeCase("zero-width space", "unix", "a\u{200B}b", "a%E2%80%8Bb"),
        EscapeCase("byte order mark", "unix", "\u{FEFF}a", "%EF%BB%BFa"),
        EscapeCase("Arabic letter mark", "unix", "a\u{061C}", "a%D8%9C"),
        EscapeCase("word joiner", "unix", "a\u{2060}", "a%E2%81%A0"),
        EscapeCase("nocontrol keeps invisible ones", "nocontrol", "a\u{200B}b", "a\u{200B}b"),
        EscapeCase("visible non-ASCII stays", "unix", "a\u{2010}b", "a\u{2010}b"),
        EscapeCase("latin-1 kept", "unix", "café", "café"),
        // Invalid UTF-8 is always escaped, whole bytes.
        EscapeCase("invalid UTF-8", "nocontrol", [0x61, 0xFF, 0xC3, 0x62], "a%FF%C3b"),
        EscapeCase("truncated sequence", "unix", [0xE2, 0x82], "%E2%82"),
        EscapeCase("overlong", "unix", [0xC0, 0xAF], "%C0%AF"),
        EscapeCase("surrogate", "unix", [0xED, 0xA0, 0x80], "%ED%A0%80"),
        // Case change covers the escapes' hex digits, as wget's in-place c_tolower.
        EscapeCase("lowercase escapes", "ascii,lowercase", "É", "%c3%89"),
        EscapeCase("uppercase keeps non-ASCII", "uppercase", "café", "CAFé"),
        EscapeCase("windows uppercase", "windows,uppercase", "a?b", "A%3FB"),
        // Dot elements are defanged.
        EscapeCase("dot dot", "unix", "..", "%2E%2E"),
        EscapeCase("dot", "unix", ".", "%2E"),
        EscapeCase("three dots kept", "unix", "...", "..."),
        EscapeCase("hidden name kept", "unix", ".profile", ".profile"),
        EscapeCase("empty", "unix", "", ""),
    ]

    @Test(arguments: escapeCases)
    func escapes(_ c: EscapeCase) throws {
        let r = try FileNameRestriction(modes: c.modes)
        #expect(r.escape(element: c.input) == c.expected)
    }

    @Test func separators() throws {
        #expect(FileNameRestriction().portSeparator == ":")
        #expect(FileNameRestriction().querySeparator == "?")
        let windows = try FileNameRestriction(modes: "windows")
        #expect(windows.portSeparator == "+")
        #expect(windows.querySeparator == "@")
    }

    @Test(arguments: ["unix", "windows", "nocontrol", "ascii", "windows,nocontrol,lowercase"])
    func neverProducesSlashOrNULWhateverTheBytes(_ modes: String) throws {
        let r = try FileNameRestriction(modes: modes)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(state % 24) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(UInt8(truncatingIfNeeded: state >> 56))
            }
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let out = r.escape(element: bytes)
            #expect(!out.utf8.contains(0x2F) && !out.utf8.contains(0x00), "\(bytes)")
            #expect(out != "." && out != "..")
            if modes.contains("ascii") { #expect(out.utf8.allSatisfy { $0 < 0x80 }) }
        }
    }

    @Test func hugeInputIsLinear() {
        let big = [UInt8](repeating: 0x2F, count: 1 << 20)
        #expect(FileNameRestriction().escape(element: big).utf8.count == 3 << 20)
    }
}
