/// The properties the libFuzzer targets of `Fuzz/` check, one per target, shared with the corpus
/// replay of the normal suite (`Tests/SwgetKitTests/Hardening/FuzzCorpusReplayTests.swift`): a
/// fuzz target aborts on a ``PropertyFailure`` (libFuzzer saves the input), the replay records
/// it as a test issue. Each property lives in its own file beside this one. Not an API for
/// programs.
public enum FuzzTarget: String, CaseIterable, Sendable {
    case responseHead = "FuzzResponseHead"
    case contentDisposition = "FuzzContentDisposition"
    case contentRange = "FuzzContentRange"
    case decoders = "FuzzDecoders"
    case resumeData = "FuzzResumeData"
    case cookies = "FuzzCookies"
    case auth = "FuzzAuth"
    case netrc = "FuzzNetrc"
    case proxy = "FuzzProxy"
    case hsts = "FuzzHSTS"
    case ftp = "FuzzFTP"
    case url = "FuzzURL"
    case configFile = "FuzzConfigFile"
    case writeOut = "FuzzWriteOut"
    case inputList = "FuzzInputList"

    /// Runs the target's property over one input; throws the first property that fails.
    public func check(_ input: [UInt8]) throws(PropertyFailure) {
        switch self {
        case .responseHead: try ResponseHeadProperty.check(input)
        case .contentDisposition: try ContentDispositionProperty.check(input)
        case .contentRange: try ContentRangeProperty.check(input)
        case .decoders: try DecodersProperty.check(input)
        case .resumeData: try ResumeDataProperty.check(input)
        case .cookies: try CookiesProperty.check(input)
        case .auth: try AuthProperty.check(input)
        case .netrc: try NetrcProperty.check(input)
        case .proxy: try ProxyProperty.check(input)
        case .hsts: try HSTSProperty.check(input)
        case .ftp: try FTPProperty.check(input)
        case .url: try URLProperty.check(input)
        case .configFile: try ConfigFileProperty.check(input)
        case .writeOut: try WriteOutProperty.check(input)
        case .inputList: try InputListProperty.check(input)
        }
    }
}

/// A property that does not hold for an input: what and where.
public struct PropertyFailure: Error, Sendable, CustomStringConvertible {
    public let message: String
    public let file: String
    public let line: Int

    public var description: String { "property failed at \(file):\(line): \(message)" }
}

/// Throws a ``PropertyFailure`` with `message` unless `condition` holds.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
             file: StaticString = #fileID, line: UInt = #line) throws(PropertyFailure) {
    if !condition() { throw PropertyFailure(message: message(), file: "\(file)", line: Int(line)) }
}

/// The input as text: UTF-8 with invalid sequences repaired, as `String(decoding:)` reads a header.
func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// Reads fuzz bytes as a stream of small decisions (split points, flags) and a remainder.
struct FuzzReader {
    private(set) var bytes: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    /// The next byte, or 0 once the input is used up.
    mutating func byte() -> UInt8 {
        guard let first = bytes.first else { return 0 }
        bytes = bytes.dropFirst()
        return first
    }

    /// Everything not read yet.
    var rest: [UInt8] { Array(bytes) }

    /// `data` cut into pieces whose sizes come from `cuts` (1 to 256 bytes each, cycling).
    static func split(_ data: [UInt8], cuts: [UInt8]) -> [[UInt8]] {
        guard !cuts.isEmpty else { return [data] }
        var pieces: [[UInt8]] = []
        var start = 0
        var index = 0
        while start < data.count {
            let size = Int(cuts[index % cuts.count]) + 1
            let end = min(data.count, start + size)
            pieces.append(Array(data[start..<end]))
            start = end
            index += 1
        }
        return pieces
    }
}
