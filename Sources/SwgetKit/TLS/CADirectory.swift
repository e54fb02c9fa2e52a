#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import X509

/// The certificates of an OpenSSL-style CA directory (`--ca-directory DIR` in wget, `--capath DIR`
/// in curl), to be trusted as roots in addition to the others.
///
/// OpenSSL looks certificates up in such a directory by subject-name hash: files named
/// `HASH.N` (eight lowercase hex digits, a dot, a decimal number), usually symbolic links made
/// by `openssl rehash` / `c_rehash`. swget loads them all up front instead, and also every
/// `*.pem`, `*.crt` and `*.cer` file, so a directory that was never rehashed works too.
/// `HASH.rN` files (CRLs) and all other names are ignored.
///
/// Each file may hold PEM certificates (any number, other PEM blocks skipped) or one DER
/// certificate. Bounds: at most ``maximumFiles`` files are read, each at most
/// ``maximumFileSize`` bytes; at most ``maximumDirectoryEntries`` names are looked at. Files
/// that cannot be read, are not regular files, are too large or hold no certificate are
/// skipped with a reason; the same certificate reached through several names (the usual
/// rehash symlinks) is kept once. Files are read in name order, so results are deterministic.
public enum CADirectory {
    /// What a directory gave.
    public struct Contents: Sendable {
        /// The distinct certificates found, in file-name order.
        public var certificates: [Certificate] = []
        /// Files skipped, with the reason.
        public var skipped: [SkippedFile] = []
    }

    /// A file of the directory that gave no certificate.
    public struct SkippedFile: Sendable, Equatable {
        /// The file's name inside the directory.
        public let file: String
        /// Why it was skipped (one line).
        public let reason: String
    }

    /// At most this many candidate files are read.
    public static let maximumFiles = 4096
    /// Larger files are skipped.
    public static let maximumFileSize = 1 << 20
    /// At most this many directory entries are examined.
    public static let maximumDirectoryEntries = 100_000

    /// Loads the certificates of `path`. Throws when the directory cannot be opened or holds no
    /// usable certificate at all.
    public static func load(path: String) throws(CADirectoryError) -> Contents {
        guard let directory = opendir(path) else { throw CADirectoryError(path: path, reason: TLSInputFile.describe(errno)) }
        var names: [String] = []
        var examined = 0
        while examined < maximumDirectoryEntries, let entry = readdir(directory) {
            examined += 1
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if isCandidate(name) { names.append(name) }
        }
        closedir(directory)
        names.sort()
        var contents = Contents()
        var seen: Set<Certificate> = []
        for name in names.prefix(maximumFiles) {
            let file = path.hasSuffix("/") ? path + name : path + "/" + name
            let bytes: [UInt8]
            do {
                bytes = try TLSInputFile.read(file, limit: maximumFileSize)
            } catch {
                contents.skipped.append(SkippedFile(file: name, reason: error.reason))
                continue
            }
            let found = TLSInputFile.certificates(in: bytes)
            if found.isEmpty { contents.skipped.append(SkippedFile(file: name, reason: "no certificate")) }
            for certificate in found where seen.insert(certificate).inserted {
                contents.certificates.append(certificate)
            }
        }
        if names.count > maximumFiles {
            contents.skipped.append(SkippedFile(file: "…", reason: "\(names.count - maximumFiles) more files not read (limit \(maximumFiles))"))
        }
        guard !contents.certificates.isEmpty else {
            throw CADirectoryError(path: path, reason: "no certificate found")
        }
        return contents
    }

    /// `HASH.N`, `*.pem`, `*.crt`, `*.cer` (case-insensitive extension); never dot-files.
    static func isCandidate(_ name: String) -> Bool {
        guard !name.hasPrefix(".") else { return false }
        let lower = name.lowercased()
        if lower.hasSuffix(".pem") || lower.hasSuffix(".crt") || lower.hasSuffix(".cer") { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count == 8, (1...4).contains(parts[1].utf8.count) else { return false }
        return parts[0].utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
            && parts[1].utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}

/// A CA directory could not be used.
public struct CADirectoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The directory given.
    public let path: String
    /// Why it cannot be used (one line).
    public let reason: String

    /// One line naming the directory.
    public var description: String { "cannot use CA directory '\(path)': \(reason)" }
}

// MARK: - Reading TLS input files (shared by the TLS loaders)

/// Bounded reading of small TLS files (certificates, keys, CRLs, pins) and lenient PEM parsing,
/// shared by ``CADirectory``, ``PublicKeyPin``, ``ClientIdentity`` and ``CertificateRevocationList``.
enum TLSInputFile {
    /// Reading failed; `reason` is one line.
    struct Failure: Error, Equatable {
        let reason: String
    }

    /// A PEM block: `-----BEGIN LABEL-----`, optional RFC 1421 headers, base64, `-----END LABEL-----`.
    struct PEMBlock {
        /// The label, e.g. "CERTIFICATE", "PRIVATE KEY", "X509 CRL".
        let label: String
        /// The decoded bytes, nil when the base64 is corrupt.
        let der: [UInt8]?
        /// The block's text from BEGIN to END inclusive, with a final newline.
        let text: String
        /// Whether it carries `Proc-Type: 4,ENCRYPTED` (a traditional encrypted key).
        let hasEncryptionHeader: Bool
    }

    /// At most this many PEM blocks are read from one file.
    static let maximumBlocks = 10_000

    /// The contents of `path`, at most `limit` bytes (more is an error). Follows symbolic links;
    /// pipes work (`<(...)`); directories are refused.
    static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw Failure(reason: describe(errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(reason: describe(errno)) }
        guard info.st_mode & S_IFMT != S_IFDIR else { throw Failure(reason: "is a directory") }
        guard info.st_mode & S_IFMT != S_IFREG || info.st_size <= limit else {
            throw Failure(reason: "larger than \(limit) bytes")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(reason: describe(errno))
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
            guard bytes.count <= limit else { throw Failure(reason: "larger than \(limit) bytes") }
        }
    }

    /// `strerror` text for `code`.
    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Whether `bytes` look like PEM text rather than DER.
    static func isPEM(_ bytes: [UInt8]) -> Bool {
        bytes.first != 0x30 && String(decoding: bytes.prefix(1 << 20), as: UTF8.self).contains("-----BEGIN ")
    }

    /// Every PEM block in `bytes` (lenient as OpenSSL: any line length, CRLF, text between blocks).
    static func pemBlocks(_ bytes: [UInt8]) -> [PEMBlock] {
        let lines = String(decoding: bytes, as: UTF8.self).split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        var blocks: [PEMBlock] = []
        var index = 0
        while index < lines.count, blocks.count < maximumBlocks {
            let line = lines[index].pemTrimmed
            index += 1
            guard line.hasPrefix("-----BEGIN "), line.hasSuffix("-----"), line.count > 16 else { continue }
            let label = String(line.dropFirst(11).dropLast(5))
            let end = "-----END \(label)-----"
            var text = line + "\n"
            var base64 = ""
            var encrypted = false
            var closed = false
            while index < lines.count {
                let body = lines[index].pemTrimmed
                index += 1
                text += body + "\n"
                if body == end {
                    closed = true
                    break
                }
                if body.contains(":") {
                    if body.hasPrefix("Proc-Type:"), body.contains("ENCRYPTED") { encrypted = true }
                    continue
                }
                base64 += body
            }
            guard closed else { break }
            let der = Data(base64Encoded: base64).map { Array($0) }
            blocks.append(PEMBlock(label: label, der: der?.isEmpty == false ? der : nil, text: text, hasEncryptionHeader: encrypted))
        }
        return blocks
    }

    /// The certificates in `bytes`: every parseable PEM `CERTIFICATE` block, or one DER certificate.
    static func certificates(in bytes: [UInt8]) -> [Certificate] {
        if isPEM(bytes) {
            return pemBlocks(bytes).compactMap { block in
                guard block.label == "CERTIFICATE", let der = block.der else { return nil }
                return try? Certificate(derEncoded: der)
            }
        }
        return (try? Certificate(derEncoded: bytes)).map { [$0] } ?? []
    }
}

private extension StringProtocol {
    /// The line without surrounding spaces, tabs and carriage returns.
    var pemTrimmed: String {
        let drop: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let start = firstIndex(where: { !drop($0) }), let last = lastIndex(where: { !drop($0) }) else { return "" }
        return String(self[start...last])
    }
}
