// The swget command with its allocations counted: the same entry point as the `swget`
// executable, run with libMallocInterposerSwift preloaded (LD_PRELOAD), counting from the first
// line of main until exit. At exit it writes one line, `mallocs=N bytes=N peak_kb=N`, to the
// file named by SWGET_ALLOCATION_REPORT (peak_kb: the process's peak resident set, VmHWM).
// Tests/swgetTests/AllocationGateTests.swift runs it twice with different amounts of work and
// gates the difference per file and per MiB; HostileBoundsTests gates peak memory.
import MallocInterposerSwift
import SwgetCLI
#if canImport(Glibc)
import Glibc
#endif

MallocInterposerSwift.initialize()
MallocInterposerSwift.hook()
// A function, not a closure in top-level code: such a closure is the main actor's, and swget
// calls exit() from whichever thread ends the run (an error exit trapped on the isolation check).
nonisolated func writeReport() {
    MallocInterposerSwift.unhook()
    let statistics = MallocInterposerSwift.getStatistics()
    guard let path = getenv("SWGET_ALLOCATION_REPORT") else { return }
    let line = "mallocs=\(statistics.mallocCount) bytes=\(statistics.mallocBytesCount) peak_kb=\(peakResidentKiB())\n"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    _ = line.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
    close(fd)
}
atexit(writeReport)

/// VmHWM from /proc/self/status, in KiB (0 when it cannot be read).
func peakResidentKiB() -> Int {
    let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return 0 }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 8192)
    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else { return 0 }
    let text = String(decoding: buffer.prefix(count), as: UTF8.self)
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
    return Int(line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
}

let command = Swget.parse()
await Swget.run(command)
