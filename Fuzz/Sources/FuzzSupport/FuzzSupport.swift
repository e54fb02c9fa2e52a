#if canImport(Glibc)
import Glibc
#endif

/// The signature libFuzzer calls for every input.
public typealias FuzzTestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ body: FuzzTestOneInput
) -> CInt

/// Runs libFuzzer with the process's arguments. SwiftPM gives an executable target its own
/// `main` (the top-level code of main.swift), which wins over libFuzzer's, so each target's
/// top-level code hands its `LLVMFuzzerTestOneInput` to the driver here.
public func runFuzzer(_ body: FuzzTestOneInput) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, body))
}

/// The input as bytes (libFuzzer may pass a null pointer for the empty input).
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// The input as text: UTF-8 with invalid sequences repaired, as `String(decoding:)` reads a header.
public func fuzzText(_ data: UnsafePointer<UInt8>?, _ size: Int) -> String {
    String(decoding: fuzzBytes(data, size), as: UTF8.self)
}

/// A property that must hold for every input: on failure the process aborts, which libFuzzer
/// reports as a crash and saves the input.
public func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                    file: StaticString = #fileID, line: UInt = #line) {
    if !condition() {
        let text = "property failed at \(file):\(line): \(message())\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
        abort()
    }
}

/// Reads fuzz bytes as a stream of small decisions (split points, flags) and a remainder.
public struct FuzzReader {
    public private(set) var bytes: ArraySlice<UInt8>

    public init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    /// The next byte, or 0 once the input is used up.
    public mutating func byte() -> UInt8 {
        guard let first = bytes.first else { return 0 }
        bytes = bytes.dropFirst()
        return first
    }

    /// Everything not read yet.
    public var rest: [UInt8] { Array(bytes) }

    /// `data` cut into pieces whose sizes come from `cuts` (1 to 256 bytes each, cycling).
    public static func split(_ data: [UInt8], cuts: [UInt8]) -> [[UInt8]] {
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
