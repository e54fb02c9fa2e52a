import Foundation
import Testing
import SwgetTestSupport

/// The passphrase prompt as a user meets it: swget runs in a pane of a real terminal (tmux,
/// detached, its own server on a socket in a fresh directory, no configuration file), the test
/// types the passphrase and looks only at what the pane shows.
@Suite("Passphrase prompt in a tmux pane", .serialized)
struct PassphrasePromptTests {
    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    @Test func thePassphraseIsAskedWithoutEcho() async throws {
        let tmux = try #require(SwgetProcess.findExecutable("tmux"), "tmux is needed (scripts/install-deps --test)")
        let pki = try OpenSSLPKI.make()
        let root = try makeTemporaryDirectory(prefix: "swget-tls-root")
        let home = try makeTemporaryDirectory(prefix: "swget-tmux")
        let work = try makeTemporaryDirectory()
        let nginx = try await NginxTLS.start(root: root, certificate: pki.path("server.pem"), key: pki.path("server.key"),
                                       clientVerification: .required(caFile: pki.path("ca.pem")))
        let socket = home + "/socket"
        func run(_ arguments: [String]) async throws -> String {
            let result = try await SwgetProcess.run(executable: tmux, ["-S", socket, "-f", "/dev/null"] + arguments, in: home,
                                                    environment: ["HOME": home], timeout: .seconds(20))
            return result.stdoutText
        }
        func waitFor(_ text: String) async throws -> String {
            for _ in 0..<300 {
                let screen = try await run(["capture-pane", "-p", "-t", "t"])
                if screen.contains(text) { return screen }
                try await Task.sleep(for: .milliseconds(100))
            }
            Issue.record("not seen on the pane: \(text)")
            return try await run(["capture-pane", "-p", "-t", "t"])
        }
        defer {
            nginx.stop()
            pki.remove()
            for directory in [root, work] { try? FileManager.default.removeItem(atPath: directory) }
        }
        let arguments = ["--cert", pki.path("client.pem"), "--key", pki.path("client-encrypted.key"), "--cacert", pki.path("ca.pem"),
                         "-q", "-O", "who.txt", nginx.httpsURL + "/whoami"]
        let command = "cd \(Self.quoted(work)) || exit 1; timeout --foreground 300 \(Self.quoted(SwgetProcess.binaryPath)) "
            + arguments.map(Self.quoted).joined(separator: " ") + "; echo EXIT=$?; exec sleep 300"
        _ = try await run(["new-session", "-d", "-x", "200", "-y", "20", "-s", "t", command])
        do {
            let prompt = try await waitFor("Enter the passphrase for '")
            #expect(prompt.contains("client-encrypted.key':"), "\(prompt)")
            _ = try await run(["send-keys", "-t", "t", "-l", OpenSSLPKI.passphrase])
            _ = try await run(["send-keys", "-t", "t", "Enter"])
            let done = try await waitFor("EXIT=")
            #expect(done.contains("EXIT=0"), "\(done)")
            #expect(!done.contains(OpenSSLPKI.passphrase), "the passphrase was echoed:\n\(done)")
            let saved = try String(contentsOfFile: work + "/who.txt", encoding: .utf8)
            #expect(saved.contains("CN=swget client"), "\(saved)")
        } catch {
            Issue.record(error)
        }
        _ = try? await run(["kill-server"])
        try? FileManager.default.removeItem(atPath: home)
    }
}
