import Foundation
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// Issue 10 §2: resume state cannot be planted. A server cannot name a download like swget's
/// own files; a state file is only ever the state of the part beside it, whatever paths it
/// records; an invalid state is reported and ignored, never trusted and never fatal.
@Suite("Security: resume state cannot be planted")
struct PlantedStateTests {
    static let source = bytes(200_000, seed: 0x2A)

    /// Names a server suggests (Content-Disposition) and what is saved.
    @Test(arguments: [
        ("x.swget", "x_swget"), ("important.txt.swget", "important.txt_swget"), ("y.part", "y_part"),
        ("Y.PART", "Y_PART"), ("z.SwGeT", "z_SwGeT"), ("x.swget\u{200B}", "x_swget"), (".part", "part"),
    ])
    func serverNamesNeverPoseAsPartsOrStates(_ suggested: String, _ saved: String) async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in
            .ok(Array("{\"version\":1}".utf8), headers: [("Content-Disposition", "attachment; filename=\"\(suggested)\"")])
        }) { server in
            let session = Session(configuration: .background(identifier: "planted"))
            let (path, _) = try await session.download(request(server.baseURL + "/feed"), to: .directory(dir))
            #expect(path.lastPathComponent == saved)
        }
        #expect(files(in: dir) == [saved])
    }

    /// `x.part.gz` decoded to `x.part` (the delegate asked for the payload): the rewritten
    /// name obeys the same rule.
    @Test(arguments: ["x.part.gz", "x.SWGET.gz"])
    func decodedPayloadNamesNeverPoseAsPartsOrStates(_ name: String) async throws {
        let dir = try makeTemporaryDirectory()
        let gz = Compression.gzip(Self.source)
        try await withServer({ _ in .ok(gz, headers: [("Content-Type", "application/gzip")]) }) { server in
            let session = Session(configuration: .background(identifier: "decoded"),
                                  delegate: DecodingSessionTests.PayloadDelegate(decode: true))
            let (path, _) = try await session.download(request(server.baseURL + "/" + name), to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(Self.source))
        }
        let saved = String(name.dropLast(3))
        #expect(files(in: dir) == [FilenameSanitizer.withoutReservedSuffix(saved)])
        #expect(files(in: dir) != [saved])
    }

    /// A hand-written `data.bin.swget` whose paths lead elsewhere: outside the directory, or
    /// to another file beside it. The state is ignored with a warning; the file it points at
    /// and its part stay as they are.
    enum Elsewhere: String, CaseIterable, Sendable { case outsideTheDirectory, anotherName }

    @Test(arguments: Elsewhere.allCases)
    func aStateCannotChooseWhereBytesGo(_ elsewhere: Elsewhere) async throws {
        let dir = try makeTemporaryDirectory()
        let outside = try makeTemporaryDirectory()
        let victim = elsewhere == .outsideTheDirectory ? outside + "/victim" : dir + "/other.txt"
        let precious = Array("precious data, not to be replaced".utf8)
        let heldPart = Array(Self.source.prefix(1000))
        try Data(precious).write(to: URL(fileURLWithPath: victim))
        try Data(heldPart).write(to: URL(fileURLWithPath: victim + ".part"))
        let recorder = WarningRecorder()
        try await withServer({ request in TestResponse.serving(Self.source, to: request, etag: "\"e\"") }) { server in
            let url = server.baseURL + "/data.bin"
            var state = ResumeData(originalURL: url, finalURL: url, etag: "\"e\"", lastModified: nil,
                                   expectedLength: Int64(Self.source.count), bytesOnDisk: 1000,
                                   partPath: victim + ".part", finalPath: victim, sessionIdentifier: "elsewhere")
            state.acceptsUnvalidatedRange = false
            try Data(state.serialized()).write(to: URL(fileURLWithPath: dir + "/data.bin.swget"))
            let session = Session(configuration: .background(identifier: "elsewhere"), delegate: recorder)
            let task = session.downloadTask(with: request(url), destination: .directory(dir))
            #expect(await task.outcome() == nil)
            #expect(fingerprint(contents(task.location)) == fingerprint(Self.source))
            #expect(task.location?.path == dir + "/data.bin")
            #expect(server.requests.allSatisfy { $0.header("Range") == nil }, "nothing was continued")
        }
        #expect(contents(victim) == precious)
        #expect(contents(victim + ".part") == heldPart)
        #expect(recorder.all.contains { $0.contains("data.bin.swget") && $0.contains("another file") }, "\(recorder.all)")
        if elsewhere == .outsideTheDirectory {
            #expect(files(in: outside) == ["victim", "victim.part"])
        }
    }

    /// States that make no sense for the 1000-byte part beside them: JSON fields of a valid
    /// state replaced by these (raw JSON; `null` removes a field).
    struct Broken: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let fields: [String: String]
        var partBytes = 1000
    }

    static let broken: [Broken] = [
        Broken(testDescription: "inverted segment", fields: ["segments": "[{\"start\":10,\"end\":5}]"]),
        Broken(testDescription: "empty segment", fields: ["segments": "[{\"start\":10,\"end\":10}]"]),
        Broken(testDescription: "overlapping segments", fields: ["segments": "[{\"start\":0,\"end\":500},{\"start\":400,\"end\":900}]"]),
        Broken(testDescription: "segment beyond the part", fields: ["segments": "[{\"start\":0,\"end\":5000}]"]),
        Broken(testDescription: "segment beyond the length", fields: ["segments": "[{\"start\":0,\"end\":900000}]"]),
        Broken(testDescription: "segment at Int64.max", fields: ["segments": "[{\"start\":9223372036854775806,\"end\":9223372036854775807}]"]),
        Broken(testDescription: "negative segment", fields: ["segments": "[{\"start\":-5,\"end\":10}]"]),
        Broken(testDescription: "segments without a length", fields: ["segments": "[{\"start\":0,\"end\":10}]", "expectedLength": "null"]),
        Broken(testDescription: "bytes beyond the part", fields: ["bytesOnDisk": "5000"]),
        Broken(testDescription: "bytes beyond the length", fields: ["expectedLength": "10"]),
        Broken(testDescription: "negative bytes", fields: ["bytesOnDisk": "-1"]),
        Broken(testDescription: "negative length", fields: ["expectedLength": "-1"]),
        Broken(testDescription: "Int64.max bytes", fields: ["bytesOnDisk": "9223372036854775807"]),
        Broken(testDescription: "bytes too big for Int64", fields: ["bytesOnDisk": "99999999999999999999"]),
        Broken(testDescription: "unknown version", fields: ["version": "99"]),
        Broken(testDescription: "no part at all", fields: [:], partBytes: -1),
    ]

    /// The JSON of `base` with `fields` replaced.
    static func stateJSON(_ base: ResumeData, replacing fields: [String: String]) throws -> [UInt8] {
        let object = try JSONSerialization.jsonObject(with: Data(base.serialized())) as? [String: Any] ?? [:]
        var text: [String: String] = [:]
        for (key, value) in object {
            text[key] = String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]), as: UTF8.self)
        }
        text.merge(fields) { $1 }
        return Array(("{" + text.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}").utf8)
    }

    @Test(arguments: broken)
    func anInvalidStateIsIgnoredNeverFatal(_ broken: Broken) async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in TestResponse.serving(Self.source, to: request, etag: "\"v\"") }) { server in
            let url = server.baseURL + "/data.bin"
            let state = ResumeData(originalURL: url, finalURL: url, etag: "\"v\"", lastModified: nil,
                                   expectedLength: Int64(Self.source.count), bytesOnDisk: 1000,
                                   partPath: dir + "/data.bin.part", finalPath: dir + "/data.bin", sessionIdentifier: "broken")
            try Data(Self.stateJSON(state, replacing: broken.fields)).write(to: URL(fileURLWithPath: dir + "/data.bin.swget"))
            if broken.partBytes >= 0 {
                try Data(Self.source.prefix(broken.partBytes)).write(to: URL(fileURLWithPath: dir + "/data.bin.part"))
            }
            let recorder = WarningRecorder()
            let session = Session(configuration: .background(identifier: "broken"), delegate: recorder)
            let task = session.downloadTask(with: request(url), destination: .directory(dir))
            #expect(await task.outcome() == nil)
            #expect(fingerprint(contents(task.location)) == fingerprint(Self.source))
            #expect(task.location?.deletingLastPathComponent().path == dir)
            #expect(server.requests.allSatisfy { $0.header("Range") == nil }, "nothing was continued")
            // Reported, whether it fails validation or cannot even be read.
            #expect(recorder.all.contains { $0.contains("ignoring '\(dir)/data.bin.swget'") }, "\(recorder.all)")
        }
    }

    /// The control for the table above: the same state, unedited, is continued.
    @Test func aValidStateIsContinued() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in TestResponse.serving(Self.source, to: request, etag: "\"v\"") }) { server in
            let url = server.baseURL + "/data.bin"
            let state = ResumeData(originalURL: url, finalURL: url, etag: "\"v\"", lastModified: nil,
                                   expectedLength: Int64(Self.source.count), bytesOnDisk: 1000,
                                   partPath: "/elsewhere/x.part", finalPath: "/elsewhere/data.bin", sessionIdentifier: "valid")
            try Data(Self.stateJSON(state, replacing: [:])).write(to: URL(fileURLWithPath: dir + "/data.bin.swget"))
            try Data(Self.source.prefix(1000)).write(to: URL(fileURLWithPath: dir + "/data.bin.part"))
            let task = Session(configuration: .background(identifier: "valid")).downloadTask(with: request(url), destination: .directory(dir))
            #expect(await task.outcome() == nil)
            #expect(task.location?.path == dir + "/data.bin")
            #expect(server.requests.map { $0.header("Range") } == ["bytes=1000-"])
        }
        #expect(fingerprint(contents(dir + "/data.bin")) == fingerprint(Self.source))
        #expect(files(in: dir) == ["data.bin"])
    }

    /// Decoding a state never crashes, whatever the bytes: hostile JSON either fails to decode
    /// or decodes into a value that validation then judges.
    @Test(arguments: [
        "", "{", "null", "[]", "{\"version\":1}", String(repeating: "[", count: 100_000),
        String(repeating: "{\"a\":", count: 20_000),
        "{\"version\":1e400,\"originalURL\":\"x\",\"finalURL\":\"x\",\"bytesOnDisk\":0,\"partPath\":\"\",\"finalPath\":\"\"}",
        "{\"version\":1,\"originalURL\":\"x\",\"finalURL\":\"x\",\"bytesOnDisk\":99999999999999999999,\"partPath\":\"\",\"finalPath\":\"\"}",
        "{\"version\":1,\"originalURL\":\"x\",\"finalURL\":\"x\",\"bytesOnDisk\":0,\"partPath\":\"\",\"finalPath\":\"\",\"expectedLength\":9223372036854775807,\"segments\":[{\"start\":9223372036854775807,\"end\":-9223372036854775808}]}",
        "{\"version\":1,\"originalURL\":\"x\",\"finalURL\":\"x\",\"bytesOnDisk\":0,\"partPath\":\"\",\"finalPath\":\"\",\"expectedLength\":100,\"segments\":[{\"start\":10,\"end\":5}]}",
        "{\"version\":1,\"originalURL\":\"\\u0000\",\"finalURL\":\"\\ud800\",\"bytesOnDisk\":-9223372036854775808,\"partPath\":\"/etc/passwd\",\"finalPath\":\"../../x\"}",
    ])
    func decodingAStateNeverCrashes(_ text: String) {
        guard let data = ResumeData(serialized: Array(text.utf8)) else { return }
        for partLength: Int64 in [0, 100, .max] {
            if case .success(let valid) = data.validated(partLength: partLength) {
                #expect(valid.bytesOnDisk >= 0 && valid.bytesOnDisk <= partLength)
                for range in valid.segments ?? [] { #expect(range.start < range.end) }
            }
        }
    }
}
