#if canImport(Glibc)
import Glibc
#endif
import SwgetFuzzChecks

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

/// Checks `target`'s property (SwgetFuzzChecks) over one input. On failure the process aborts,
/// which libFuzzer reports as a crash and saves the input. libFuzzer may pass a null pointer for
/// the empty input.
public func fuzzCheck(_ target: FuzzTarget, _ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try target.check(bytes)
    } catch {
        let text = "\(target.rawValue): \(error)\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
        abort()
    }
    return 0
}
