#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Testing
import SwgetTestSupport
@testable import SwgetKit

/// What a scan of a directory finds and removes. A process killed between writing a state's
/// temporary file and renaming it leaves the temporary file behind; the next scan of the
/// directory removes it, and only it. The scan also lists the part files.
@Suite("Resume store: directory scans")
struct ResumeStoreTests {
    /// Creates `name` in `dir` with a modification time `age` seconds ago; returns its descriptor
    /// (open, for a test that holds its lock) .
    func temporary(_ dir: String, _ name: String, age: Int) throws -> Int32 {
        let path = dir + "/" + name
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        let then = time(nil) - age
        var times = [timespec(tv_sec: then, tv_nsec: 0), timespec(tv_sec: then, tv_nsec: 0)]
        #expect(futimens(fd, &times) == 0)
        return fd
    }

    func entries(_ dir: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }

    @Test func anAbandonedTemporaryFileIsRemovedAndALiveOneKept() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        close(try temporary(dir, ".swget-state-dead01", age: 30))
        close(try temporary(dir, ".swget-state-fresh1", age: 0))
        let live = try temporary(dir, ".swget-state-live01", age: 30)
        defer { close(live) }
        #expect(flock(live, LOCK_EX) == 0)
        #expect(mkdir(dir + "/.swget-state-adir01", 0o755) == 0)
        #expect(symlink("/etc/hostname", dir + "/.swget-state-link01") == 0)
        close(try temporary(dir, "other.txt", age: 30))

        #expect(ResumeStore.scan(dir).states.isEmpty)
        #expect(entries(dir) == [".swget-state-adir01", ".swget-state-fresh1", ".swget-state-link01", ".swget-state-live01",
                                 "other.txt"])
    }

    /// The scan that finds the states also lists the part files; the index answers "absent"
    /// for a part only in a directory it read, and only until the session makes a part file.
    @Test func theIndexKnowsWhichPartsADirectoryHeld() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        close(try temporary(dir, "a.bin.part", age: 0))
        close(try temporary(dir, "b.bin", age: 0))
        close(try temporary(dir, ".hidden.part", age: 0))
        #expect(ResumeStore.scan(dir).partNames == ["a.bin.part", ".hidden.part"])
        #expect(ResumeStore.scan(dir + "/missing").partNames == [], "a directory that is not there holds no part")

        let index = ResumeStateIndex()
        #expect(!index.knowsAbsent(partName: "b.bin.part", in: dir), "not read yet: look it up")
        #expect(index.claim(in: dir, originalURL: { "http://h/b.bin" }, identifier: "s", invalid: { _ in }) == nil)
        #expect(index.knowsAbsent(partName: "b.bin.part", in: dir))
        #expect(!index.knowsAbsent(partName: "a.bin.part", in: dir))
        #expect(!index.knowsAbsent(partName: "b.bin.part", in: dir + "/other"))
        index.notePartFile()
        #expect(!index.knowsAbsent(partName: "b.bin.part", in: dir), "a part made since: look it up")
    }

    @Test func aSavedStateLeavesNoTemporaryFile() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let paths = try #require(DownloadPaths(directory: dir, name: "f.bin"))
        let data = ResumeData(originalURL: "http://h/f.bin", finalURL: "http://h/f.bin", etag: "\"e\"", lastModified: nil,
                              expectedLength: 10, bytesOnDisk: 0, partPath: paths.partPath, finalPath: paths.finalPath,
                              sessionIdentifier: "s")
        try ResumeStore.save(data, at: paths)
        #expect(entries(dir) == ["f.bin.swget"])
    }

    /// A kill between the publish and the state's removal leaves `NAME` complete and
    /// `NAME.swget` beside it with no part. The next run removes that state, whether it skips
    /// the name (`-nc`) or downloads to another one (the fault soak's finding, seed 20261127).
    @Test(arguments: [DownloadDestination.Collision.skip, .uniqueName])
    func aStateWhosePartIsGoneIsRemoved(_ collision: DownloadDestination.Collision) async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in TestResponse.serving(ResumeTests.source, to: request, etag: "\"s\"") }) { server in
            let url = server.baseURL + "/s.bin"
            let paths = try #require(DownloadPaths(directory: dir, name: "s.bin"))
            try Data(ResumeTests.source).write(to: URL(fileURLWithPath: paths.finalPath))
            try ResumeStore.save(ResumeData(originalURL: url, finalURL: url, etag: "\"s\"", lastModified: nil,
                                            expectedLength: Int64(ResumeTests.source.count), bytesOnDisk: 0, partPath: paths.partPath,
                                            finalPath: paths.finalPath, sessionIdentifier: "test-bg"), at: paths)
            var destination = DownloadDestination.directory(dir)
            destination.collision = collision
            let task = Session(configuration: ResumeTests.fastRetries(background: "test-bg")).downloadTask(with: request(url), destination: destination)
            #expect(await task.outcome() == nil)
            #expect(!files(in: dir).contains("s.bin.swget"), "\(files(in: dir))")
            #expect(fingerprint(contents(paths.finalPath)) == fingerprint(ResumeTests.source))
        }
    }
}
