// FuzzNetrc: the input and its property are in Sources/SwgetFuzzChecks/NetrcProperty.swift (shared with the
// corpus replay of the normal suite).
import FuzzSupport
import SwgetFuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { fuzzCheck(.netrc, data, size) }

runFuzzer(fuzzOne)
