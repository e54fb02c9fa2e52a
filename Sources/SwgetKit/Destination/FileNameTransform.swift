/// A caller's rewriting of the file names a download chooses by itself inside a directory
/// (wget's `--restrict-file-names`): the name from Content-Disposition, from the URL's last
/// path segment, or the default page, before any extension is added.
///
/// The transform receives the candidate as raw bytes: a URL segment percent-decoded (not
/// necessarily valid UTF-8, control characters and `\` included), a Content-Disposition name
/// as decoded, the default page as given. It replaces ``FilenameSanitizer/sanitize(_:)`` for
/// those candidates, so it decides which characters are escaped or kept; its result is still
/// held to one harmless path component by ``FilenameSanitizer/sanitizeTransformed(_:)`` (no
/// `/`, no NUL, not `.` or `..`, no leading dot, at most 255 bytes, no `.part`/`.swget`
/// suffix). A result that fails that falls through to the next naming rule, as an unusable
/// name does without a transform.
///
/// Two transforms are equal when their identifiers are: give each different rewriting its
/// own identifier (the CLI uses the option and its value).
public struct FileNameTransform: Sendable, Equatable, CustomStringConvertible {
    /// Names the rewriting, for equality and for debugging.
    public let identifier: String
    private let body: @Sendable ([UInt8]) -> String

    /// A transform named `identifier` that rewrites a candidate's bytes into a name.
    public init(identifier: String, _ body: @escaping @Sendable (_ candidate: [UInt8]) -> String) {
        self.identifier = identifier
        self.body = body
    }

    /// The rewritten name of `candidate`.
    public func callAsFunction(_ candidate: [UInt8]) -> String { body(candidate) }

    public var description: String { identifier }

    public static func == (lhs: FileNameTransform, rhs: FileNameTransform) -> Bool {
        lhs.identifier == rhs.identifier
    }
}
