#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import SwgetKit

/// A private directory of files for the upload tests, removed on release.
final class UploadScratchDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/swget-upload-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return mkdtemp(base) != nil
        }
        try #require(made)
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." { _ = unlink(path + "/" + name) }
            }
            closedir(dir)
        }
        rmdir(path)
    }

    /// Writes `bytes` to `name` and returns its path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = path + "/" + name
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                Glibc.write(fd, raw.baseAddress.map { $0 + done }, bytes.count - done)
            }
            try #require(n > 0)
            done += n
        }
        return file
    }
}

/// Everything a reader yields, in chunks of at most `chunk` bytes (checked).
func drain(_ reader: inout BodyReader, chunk: Int) throws -> [UInt8] {
    var out: [UInt8] = []
    while let next = try reader.next(maxBytes: chunk) {
        #expect(!next.isEmpty && next.count <= chunk)
        out += next
    }
    return out
}

/// `count` deterministic, non-repeating-looking bytes.
func patternBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 56)
    }
}
