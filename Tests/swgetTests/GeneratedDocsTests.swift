import Foundation
import Testing
import SwgetTestSupport
@testable import SwgetCLI
@testable import SwgetDocs

/// The man page and the shell completions are generated from the built binary's ArgumentParser
/// declarations and committed. These tests regenerate them and fail when the committed files
/// differ; with SWGET_UPDATE_DOCS=1 (what scripts/generate-docs sets) they write them instead.
@Suite("generated docs: man page and completions")
struct GeneratedDocsTests {
    /// The repository: three levels above this file (Tests/swgetTests/GeneratedDocsTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    static var updating: Bool { ProcessInfo.processInfo.environment["SWGET_UPDATE_DOCS"] == "1" }

    /// Runs swget with `arguments` (in a scratch directory) and returns its standard output.
    static func swgetOutput(_ arguments: [String]) async throws -> String {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(arguments, in: dir, timeout: .seconds(30))
        guard result.status == 0, !result.stdout.isEmpty else {
            throw ManPage.RenderError("swget \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result.stdoutText
    }

    /// Every generated file, by path relative to the repository, freshly generated.
    static func generate() async throws -> [(path: String, contents: String)] {
        async let dump = swgetOutput(["--experimental-dump-help"])
        async let version = swgetOutput(["--version"])
        async let bash = swgetOutput(["--generate-completion-script", "bash"])
        async let zsh = swgetOutput(["--generate-completion-script", "zsh"])
        async let fish = swgetOutput(["--generate-completion-script", "fish"])
        let info = try JSONDecoder().decode(ToolInfo.self, from: Data(try await dump.utf8))
        let manPage = try ManPage.render(info, version: try await version.trimmingCharacters(in: .whitespacesAndNewlines))
        return [
            ("man/swget.1", manPage),
            ("completions/swget.bash", try await bash),
            ("completions/_swget", try await zsh),
            ("completions/swget.fish", try await fish),
        ]
    }

    /// Where two texts first differ, as "line N: committed … / generated …".
    static func firstDifference(_ committed: String, _ generated: String) -> String {
        let old = committed.components(separatedBy: "\n"), new = generated.components(separatedBy: "\n")
        for index in 0..<max(old.count, new.count) {
            let a = index < old.count ? old[index] : "<end of file>"
            let b = index < new.count ? new[index] : "<end of file>"
            if a != b { return "line \(index + 1):\n  committed: \(a)\n  generated: \(b)" }
        }
        return "no difference"
    }

    @Test func committedFilesMatchTheDeclarations() async throws {
        for file in try await Self.generate() {
            let path = Self.root + "/" + file.path
            if Self.updating {
                try Data(file.contents.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                continue
            }
            let committed = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
            guard let committed else {
                Issue.record("\(file.path) is missing: run scripts/generate-docs and commit it")
                continue
            }
            // Not #expect(==): it would print both whole files.
            if committed != file.contents {
                Issue.record("""
                    \(file.path) is out of date with swget's option declarations: run scripts/generate-docs \
                    and commit the result. First difference at \(Self.firstDifference(committed, file.contents))
                    """)
            }
        }
    }

    /// Each completion script passes its own shell's syntax check, and bash and fish complete an
    /// option from it (the scripts call no swget at completion time for these).
    @Test func completionScriptsAreValidForTheirShells() async throws {
        let files = Dictionary(uniqueKeysWithValues: try await Self.generate().map { ($0.path, $0.contents) })
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func shell(_ name: String) throws -> String {
            try #require(SwgetProcess.findExecutable(name),
                         "\(name) is needed to check the \(name) completions: run scripts/install-deps --test")
        }
        func check(_ shellName: String, _ arguments: [String], file: String) async throws -> SwgetResult {
            let script = dir + "/" + (file as NSString).lastPathComponent
            try Data(try #require(files[file]).utf8).write(to: URL(fileURLWithPath: script))
            let result = try await SwgetProcess.run(executable: try shell(shellName), arguments + [script], in: dir,
                                                    timeout: .seconds(30))
            #expect(result.status == 0, "\(shellName) rejects \(file): \(result.stderr)")
            return result
        }
        _ = try await check("bash", ["-n"], file: "completions/swget.bash")
        _ = try await check("zsh", ["-n"], file: "completions/_swget")
        _ = try await check("fish", ["--no-execute"], file: "completions/swget.fish")

        // bash: _swget offers the long option for a prefix.
        let bashProbe = """
            source "$1"
            COMP_LINE="swget --output-d"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(swget --output-d); COMP_CWORD=1
            _swget swget --output-d swget
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let bash = try await check("bash", ["-c", bashProbe, "probe"], file: "completions/swget.bash")
        #expect(bash.stdoutText == "--output-document\n", "bash completion of --output-d: \(bash.stdoutText)")

        // fish: the same through `complete -C`.
        let fishProbe = #"source $argv[1]; complete -C 'swget --output-d'"#
        let fish = try await check("fish", ["-c", fishProbe], file: "completions/swget.fish")
        #expect(fish.stdoutText.hasPrefix("--output-document\t"), "fish completion of --output-d: \(fish.stdoutText)")

        // No phantom `help` subcommand (ArgumentParser injects one; swget would fetch http://help).
        let bashFirstWord = try await check("bash", ["-c", """
            source "$1"
            COMP_LINE="swget h"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(swget h); COMP_CWORD=1
            _swget swget h swget
            printf '%s\\n' "${COMPREPLY[@]}"
            """, "probe"], file: "completions/swget.bash")
        #expect(!bashFirstWord.stdoutText.contains("help"), "bash offers: \(bashFirstWord.stdoutText)")
        let fishFirstWord = try await check("fish", ["-c", #"source $argv[1]; complete -C 'swget h'"#], file: "completions/swget.fish")
        #expect(!fishFirstWord.stdoutText.contains("help"), "fish offers: \(fishFirstWord.stdoutText)")
        let zsh = try #require(files["completions/_swget"])
        #expect(!zsh.contains("help:Show subcommand help") && !zsh.contains("->command"), "zsh offers a help subcommand")
    }

    @Test func completionRequestsAreRecognised() {
        #expect(CompletionScript.requestedShell(in: ["--generate-completion-script", "zsh"]) == "zsh")
        #expect(CompletionScript.requestedShell(in: ["-q", "--generate-completion-script=fish"]) == "fish")
        #expect(CompletionScript.requestedShell(in: ["--", "--generate-completion-script", "bash"]) == nil)
        #expect(CompletionScript.requestedShell(in: ["http://x/"]) == nil)
        let bash = "a\n    COMPREPLY+=($(compgen -W 'help' -- \"${cur}\"))\nb"
        #expect(CompletionScript.withoutHelpSubcommand(bash, shell: "bash") == "a\nb")
        #expect(CompletionScript.withoutHelpSubcommand(bash, shell: "elvish") == bash)
    }

    @Test func manPageHasTheTemplateSectionsAndEscapes() async throws {
        let page = try #require(try await Self.generate().first { $0.path == "man/swget.1" }).contents
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES"] {
            #expect(page.contains("\n.SH \(section)\n"), "no \(section) section")
        }
        #expect(page.contains(#"\fB\-O\fR, \fB\-\-output\-document\fR \fIFILE\fR"#))
        #expect(!page.contains(".SH COMMANDS"), "ArgumentParser's phantom help subcommand is documented")
        // Every line is a request, a comment, or text that cannot be mistaken for one.
        for line in page.split(separator: "\n") where !line.hasPrefix(".") {
            #expect(!line.hasPrefix("'"), "a text line starts with ': \(line)")
        }
        #expect(ManPage.escape(".x -y\n'z \\w") == #"\&.x \-y"# + "\n" + #"\&'z \ew"#)
        // One sentence per line, at most 10 bytes where a break is allowed, never after "x." mid-sentence.
        #expect(ManPage.text("One two. Three four five x. y .z", width: 10) == "One two.\nThree four\nfive x. y\n\\&.z")
    }

    @Test(.enabled(if: SwgetProcess.findExecutable("groff") != nil, "groff is not installed (apt-get install groff-base)"))
    func manPageRendersWithoutGroffWarnings() async throws {
        let page = try #require(try await Self.generate().first { $0.path == "man/swget.1" }).contents
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(page.utf8).write(to: URL(fileURLWithPath: dir + "/swget.1"))
        let groff = try #require(SwgetProcess.findExecutable("groff"))
        let result = try await SwgetProcess.run(executable: groff, ["-man", "-Tutf8", "-ww", "-P-cbou", "swget.1"], in: dir)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "groff warns: \(result.stderr)")
        #expect(result.stdoutText.contains("EXIT STATUS"))
    }

    @Test(.enabled(if: SwgetProcess.findExecutable("mandoc") != nil, "mandoc is not installed (apt-get install mandoc)"))
    func manPagePassesMandocLint() async throws {
        let page = try #require(try await Self.generate().first { $0.path == "man/swget.1" }).contents
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(page.utf8).write(to: URL(fileURLWithPath: dir + "/swget.1"))
        let mandoc = try #require(SwgetProcess.findExecutable("mandoc"))
        let result = try await SwgetProcess.run(executable: mandoc, ["-Tlint", "-W", "all", "swget.1"], in: dir)
        #expect(result.status == 0 && result.stdoutText.isEmpty && result.stderr.isEmpty,
                "mandoc -Tlint: \(result.stdoutText)\(result.stderr)")
    }
}
