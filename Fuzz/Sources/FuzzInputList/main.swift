// FuzzInputList: the input and its property are in Sources/SwgetFuzzChecks/CommandLineTextProperties.swift (InputListProperty) (shared with the
// corpus replay of the normal suite).
import FuzzSupport
import SwgetFuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { fuzzCheck(.inputList, data, size) }

runFuzzer(fuzzOne)
