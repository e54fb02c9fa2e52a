#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable import SwgetKit

/// Each test works in its own fresh temporary directory, removed afterwards.
@Suite final class DestinationFileTests {
    let dir: String

    init() throws {
        var template = Array("/tmp/swget-destination-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap(mkdtemp) }
        try #require(made != nil)
        dir = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: dir)
    }

    // MARK: reserve

    @Test func reservesAnExclusivePartFileAndPublishesIt() throws {
        let file = try #require(try DestinationFile.reserve(directory: dir, name: "a.txt", policy: .unique))
        #expect(file.finalPath == dir + "/a.txt")
        #expect(file.partPath == dir + "/a.txt.part")
        #expect(file.existingLength == 0)
        #expect(mode(file.partPath).map { $0 & 0o7111 } == 0)
        #expect(mode(file.partPath).map { $0 & 0o600 } == 0o600)
        #expect(!exists(file.finalPath))
        write(file.fileDescriptor, "hello")
        #expect(try file.publish() == dir + "/a.txt")
        #expect(contents(dir + "/a.txt") == "hello")
        #expect(!exists(dir + "/a.txt.part"))
    }

    @Test func uniqueSkipsNamesWhoseFileOrPartExists() throws {
        create(dir + "/a.txt", "old")
        create(dir + "/a-1.txt.part", "someone else's")
        let file = try #require(try DestinationFile.reserve(directory: dir, name: "a.txt", policy: .unique))
        #expect(file.finalPath == dir + "/a-2.txt")
        #expect(contents(dir + "/a-1.txt.part") == "someone else's")
        file.abandon()
    }

    @Test func aDanglingSymlinkCountsAsTaken() throws {
        symlink(dir + "/nowhere", dir + "/a.txt")
        symlink(dir + "/nowhere", dir + "/a-1.txt.part")
        let file = try #require(try DestinationFile.reserve(directory: dir, name: "a.txt", policy: .unique))
        #expect(file.finalPath == dir + "/a-2.txt")
        #expect(!exists(dir + "/nowhere"))
        file.abandon()
    }

    @Test func concurrentReservationsNeverShareAName() async throws {
        let directory = dir
        let paths = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<24 {
                group.addTask {
                    guard let file = try? DestinationFile.reserve(directory: directory, name: "same.bin", policy: .unique)
                    else { return nil }
                    defer { file.abandon() }
                    return file.finalPath
                }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(paths.allSatisfy { $0 != nil })
        #expect(Set(paths.compactMap { $0 }).count == 24)
    }

    @Test func noClobberSkipsAnExistingName() throws {
        create(dir + "/a.txt", "keep me")
        #expect(try DestinationFile.reserve(directory: dir, name: "a.txt", policy: .noClobber) == nil)
        #expect(contents(dir + "/a.txt") == "keep me")
        #expect(!exists(dir + "/a.txt.part"))
    }

    @Test func noClobberRestartsAStalePartFile() throws {
        create(dir + "/b.txt.part", "stale bytes")
        let file = try #require(try DestinationFile.reserve(directory: dir, name: "b.txt", policy: .noClobber))
        #expect(contents(file.partPath) == "")
        write(file.fileDescriptor, "fresh")
        #expect(try file.publish() == dir + "/b.txt")
        #expect(contents(dir + "/b.txt") == "fresh")
    }

    @Test func overwriteTruncatesThePartAndReplacesTheName() throws {
        create(dir + "/o.txt", "old contents")
        create(dir + "/o.txt.part", "stale part bytes")
        let file = try #require(try DestinationFile.reserve(directory: dir, name: "o.txt", policy: .overwrite))
        #expect(file.finalPath == dir + "/o.txt")
        #expect(contents(file.partPath) == "")
        write(file.fileDescriptor, "new")
        #expect(try file.publish() == dir + "/o.txt")
        #expect(contents(dir + "/o.txt") == "new")
    }

    @Test func overwriteDoesNotWriteThroughASymlinkedPart() throws {
        create(dir + "/victim", "precious")
        symlink(dir + "/victim", dir + "/o.txt.part")
        #expect(throws: DestinationError.self) {
            try DestinationFile.reserve(directory: dir, name: "o.txt", policy: .overwrite)
        }
        #expect(contents(dir + "/victim") == "precious")
    }

    @Test func createsMissingDirectories() throws {
        let nested = dir + "/x/y/z"
        let file = try #require(try DestinationFile.reserve(directory: nested, name: "f.bin", policy: .unique))
        #expect(file.finalPath == nested + "/f.bin")
        #expect(try file.publish() == nested + "/f.bin")
        #expect(exists(nested + "/f.bin"))
    }

    @Test func aNameWithDirectoriesIsSplit() throws {
        let file = try #require(try DestinationFile.reserve(directory: dir + "/", name: "sub/out.txt", policy: .overwrite))
        #expect(file.finalPath == dir + "/sub/out.txt")
        #expect(try file.publish() == dir + "/sub/out.txt")
    }

    @Test(arguments: ["", ".", "..", "dir/", "dir/.."])
    func rejectsNamesThatAreNoFile(_ name: String) {
        #expect(throws: DestinationError.self) {
            try DestinationFile.reserve(directory: dir, name: name, policy: .overwrite)
        }
    }

    @Test func aRegularFileInTheDirectoryPathIsNotADirectory() throws {
        create(dir + "/plain", "I am a file")
        for directory in [dir + "/plain", dir + "/plain/sub/deeper"] {
            let error = try #require(throws: DestinationError.self) {
                try DestinationFile.reserve(directory: directory, name: "a.txt", policy: .unique)
            }
            #expect(error.operation == .createDirectory)
            #expect(error.errno == ENOTDIR)
            #expect(error.path == dir + "/plain")
            #expect(error.description == "cannot create directory '\(dir)/plain': Not a directory")
        }
    }

    @Test func partFileOfAMaximalNameStillFits() throws {
        let name = String(repeating: "n", count: 251) + ".txt"  // 255 bytes
        let unique = try #require(try DestinationFile.reserve(directory: dir, name: name, policy: .unique))
        #expect(unique.finalPath.hasSuffix(".txt"))
        // Room is kept for both NAME.part and the resume state NAME.swget beside it.
        #expect(lastComponent(unique.partPath).utf8.count == 254)
        #expect(lastComponent(unique.paths?.statePath ?? "").utf8.count == 255)
        unique.abandon()
        let second = try #require(try DestinationFile.reserve(directory: dir, name: name, policy: .unique))
        #expect(lastComponent(second.partPath).utf8.count <= 255)
        #expect(second.finalPath.hasSuffix("-1.txt"))
        second.abandon()
        let exact = try #require(try DestinationFile.reserve(directory: dir, name: name, policy: .overwrite))
        #expect(exact.finalPath == dir + "/" + name)
        #expect(try exact.publish() == dir + "/" + name)
    }

    // MARK: publish

    @Test func publishNeverClobbersAFileThatAppearedMeanwhile() throws {
        let file = try #require(try DestinationFile.reserve(directory: dir, name: "race.txt", policy: .unique))
        create(dir + "/race.txt", "arrived first")
        create(dir + "/race-1.txt.part", "another download")
        write(file.fileDescriptor, "mine")
        #expect(try file.publish() == dir + "/race-2.txt")
        #expect(contents(dir + "/race.txt") == "arrived first")
        #expect(contents(dir + "/race-2.txt") == "mine")
        #expect(!exists(dir + "/race.txt.part"))
    }

    @Test func noClobberPublishFailsRatherThanReplace() throws {
        let file = try #require(try DestinationFile.reserve(directory: dir, name: "nc.txt", policy: .noClobber))
        create(dir + "/nc.txt", "arrived first")
        let error = try #require(throws: DestinationError.self) { try file.publish() }
        #expect(error.errno == EEXIST)
        #expect(error.description == "cannot rename '\(dir)/nc.txt.part' to '\(dir)/nc.txt': File exists")
        #expect(contents(dir + "/nc.txt") == "arrived first")
        #expect(exists(dir + "/nc.txt.part"))
    }

    @Test func publishAndAbandonCloseOnce() throws {
        let file = try #require(try DestinationFile.reserve(directory: dir, name: "once.txt", policy: .unique))
        _ = try file.publish()
        #expect(throws: DestinationError.self) { try file.publish() }
        file.abandon()
        #expect(exists(dir + "/once.txt"))
    }

    @Test(arguments: [true, false])
    func renameNoReplaceRefusesAnExistingTarget(useRenameAt2: Bool) {
        create(dir + "/from", "new")
        create(dir + "/to", "old")
        #expect(DestinationFile.renameNoReplace(dir + "/from", dir + "/to", useRenameAt2: useRenameAt2) == EEXIST)
        #expect(contents(dir + "/to") == "old")
        #expect(DestinationFile.renameNoReplace(dir + "/from", dir + "/free", useRenameAt2: useRenameAt2) == 0)
        #expect(contents(dir + "/free") == "new")
        #expect(!exists(dir + "/from"))
        #expect(DestinationFile.renameNoReplace(dir + "/missing", dir + "/other", useRenameAt2: useRenameAt2) == ENOENT)
    }

    // MARK: resume and locking

    @Test func resumeContinuesAnAbandonedPart() throws {
        #expect(try DestinationFile.resume(directory: dir, name: "r.bin") == nil)
        let first = try #require(try DestinationFile.reserve(directory: dir, name: "r.bin", policy: .unique))
        write(first.fileDescriptor, "abc")
        first.abandon()
        #expect(contents(dir + "/r.bin.part") == "abc")
        let again = try #require(try DestinationFile.resume(directory: dir, name: "r.bin"))
        #expect(again.existingLength == 3)
        write(again.fileDescriptor, "def")
        #expect(try again.publish() == dir + "/r.bin")
        #expect(contents(dir + "/r.bin") == "abcdef")
    }

    @Test func aPartInUseCannotBeResumedOrOverwritten() throws {
        let owner = try #require(try DestinationFile.reserve(directory: dir, name: "busy.bin", policy: .unique))
        write(owner.fileDescriptor, "in progress")
        let resumeError = try #require(throws: DestinationError.self) {
            try DestinationFile.resume(directory: dir, name: "busy.bin")
        }
        #expect(resumeError.operation == .lock)
        let overwriteError = try #require(throws: DestinationError.self) {
            try DestinationFile.reserve(directory: dir, name: "busy.bin", policy: .overwrite)
        }
        #expect(overwriteError.operation == .lock)
        #expect(overwriteError.description == "cannot use '\(dir)/busy.bin.part': another download is writing it")
        #expect(contents(owner.partPath) == "in progress")
        owner.abandon()
        let resumed = try #require(try DestinationFile.resume(directory: dir, name: "busy.bin"))
        #expect(resumed.existingLength == 11)
        resumed.abandon()
    }
}

/// Small bodies go to an unnamed file linked under its name when complete (UnnamedFile).
@Suite final class UnnamedFileTests {
    let dir: String

    init() throws {
        var template = Array("/tmp/swget-unnamed-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap(mkdtemp) }
        try #require(made != nil)
        dir = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: dir)
    }

    func entries() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }

    func created(_ name: String, _ policy: DestinationFile.Policy = .unique) throws -> UnnamedFile {
        guard case .file(let file) = try UnnamedFile.create(directory: dir, name: name, policy: policy) else {
            Issue.record("no unnamed file for \(name)")
            throw DestinationError(.create, path: name, errno: EINVAL)
        }
        return file
    }

    @Test func nothingHasANameUntilTheFileIsPublished() throws {
        let file = try created("a.txt")
        #expect(file.finalPath == dir + "/a.txt")
        write(file.fileDescriptor, "hello")
        #expect(entries().isEmpty, "no part file, no state file while the bytes arrive")
        #expect(try file.publish() == dir + "/a.txt")
        #expect(contents(dir + "/a.txt") == "hello")
        #expect(entries() == ["a.txt"])
        create(dir + "/reference", "")  // open(2) with 0644 under this process's umask
        let permissions = mode(dir + "/a.txt").map { $0 & 0o777 }
        #expect(permissions != nil && permissions == mode(dir + "/reference").map { $0 & 0o777 })
    }

    @Test func theLinkThroughProcPublishesToo() throws {
        // This kernel lets the opener link by descriptor (AT_EMPTY_PATH); older ones and other
        // users' processes take /proc/self/fd. Both must publish the same way.
        UnnamedFile.linkByDescriptor.store(false, ordering: .relaxed)
        defer { UnnamedFile.linkByDescriptor.store(true, ordering: .relaxed) }
        create(dir + "/p.txt", "taken")
        let file = try created("p.txt")
        write(file.fileDescriptor, "through proc")
        #expect(try file.publish() == dir + "/p-1.txt")
        #expect(contents(dir + "/p-1.txt") == "through proc")
        #expect(contents(dir + "/p.txt") == "taken")
    }

    @Test func anAbandonedFileLeavesNothingBehind() throws {
        let file = try created("b.bin")
        write(file.fileDescriptor, "partial")
        file.abandon()
        #expect(entries().isEmpty)
        #expect(throws: DestinationError.self) { try file.publish() }
    }

    @Test func uniqueNamesPassOverTakenNamesAndParts() throws {
        create(dir + "/c.txt", "old")
        create(dir + "/c-1.txt.part", "someone's part")
        let file = try created("c.txt")
        // The first candidate whose part is free; the link finds c.txt taken and goes on.
        #expect(file.finalPath == dir + "/c.txt")
        // A name that appears between opening and publishing is never replaced either.
        create(dir + "/c-2.txt", "raced")
        write(file.fileDescriptor, "new")
        #expect(try file.publish() == dir + "/c-3.txt")
        #expect(contents(dir + "/c.txt") == "old")
        #expect(contents(dir + "/c-2.txt") == "raced")
        #expect(contents(dir + "/c-3.txt") == "new")
    }

    /// With the session's reading of the directory, a part it found is passed over as before,
    /// a name it found no part for is taken without a lookup, and once the session makes a
    /// part file every name is looked up again (a part made after the reading is seen).
    @Test func theSessionsReadingOfTheDirectoryStandsInForThePartLookup() throws {
        create(dir + "/k.txt.part", "someone's part")
        let index = ResumeStateIndex()
        _ = index.claim(in: dir, originalURL: { "http://h/k.txt" }, identifier: "s", invalid: { _ in })
        func reserved(_ name: String) throws -> UnnamedFile {
            guard case .file(let file) = try UnnamedFile.create(directory: dir, name: name, policy: .unique, knownParts: index) else {
                Issue.record("no unnamed file for \(name)")
                throw DestinationError(.create, path: name, errno: EINVAL)
            }
            return file
        }
        #expect(try reserved("k.txt").finalPath == dir + "/k-1.txt", "a part that was there is passed over")
        // A part the reading never saw: taken on the reading's word while no part was made here...
        create(dir + "/m.txt.part", "appeared after the reading")
        #expect(try reserved("m.txt").finalPath == dir + "/m.txt")
        // ...and looked up once this session has made a part file.
        index.notePartFile()
        #expect(try reserved("m.txt").finalPath == dir + "/m-1.txt")
        // Whatever the reading said, the link never replaces a file.
        let file = try reserved("n.txt")
        create(dir + "/n.txt", "raced")
        write(file.fileDescriptor, "new")
        #expect(try file.publish() == dir + "/n-1.txt")
        #expect(contents(dir + "/n.txt") == "raced")
    }

    @Test func noClobberSkipsAnExistingNameAndNeverReplacesOne() throws {
        create(dir + "/d.txt", "mine")
        guard case .skipped(let path) = try UnnamedFile.create(directory: dir, name: "d.txt", policy: .noClobber) else {
            Issue.record("an existing name is skipped")
            return
        }
        #expect(path == dir + "/d.txt")
        let file = try created("e.txt", .noClobber)
        create(dir + "/e.txt", "appeared")
        write(file.fileDescriptor, "downloaded")
        #expect(throws: DestinationError.self) { try file.publish() }
        #expect(contents(dir + "/e.txt") == "appeared")
    }

    @Test func replacingANameKeepsThePartFile() throws {
        guard case .unsupported = try UnnamedFile.create(directory: dir, name: "f.txt", policy: .overwrite) else {
            Issue.record("-O replaces a name: a link cannot, so it takes a part file")
            return
        }
    }

    @Test func missingDirectoriesAreCreated() throws {
        let file = try created("sub/dir/g.txt")
        write(file.fileDescriptor, "deep")
        #expect(try file.publish() == dir + "/sub/dir/g.txt")
        #expect(contents(dir + "/sub/dir/g.txt") == "deep")
    }
}

// MARK: helpers

private func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
}

private func mode(_ path: String) -> mode_t? {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode : nil
}

private func lastComponent(_ path: String) -> Substring {
    path.split(separator: "/").last ?? ""
}

private func write(_ fd: Int32, _ text: String) {
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    #expect(written == bytes.count)
}

private func create(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    #expect(fd >= 0)
    write(fd, text)
    close(fd)
}

private func contents(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        bytes += buffer[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
