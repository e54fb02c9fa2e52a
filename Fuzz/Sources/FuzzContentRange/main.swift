// FuzzContentRange: the input and its property are in Sources/SwgetFuzzChecks/ContentRangeProperty.swift (shared with the
// corpus replay of the normal suite).
import FuzzSupport
import SwgetFuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { fuzzCheck(.contentRange, data, size) }

runFuzzer(fuzzOne)
