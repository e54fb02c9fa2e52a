// FuzzWriteOut: the input and its property are in Sources/SwgetFuzzChecks/CommandLineTextProperties.swift (WriteOutProperty) (shared with the
// corpus replay of the normal suite).
import FuzzSupport
import SwgetFuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { fuzzCheck(.writeOut, data, size) }

runFuzzer(fuzzOne)
