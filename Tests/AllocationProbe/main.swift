// The swget command with its allocations counted: the same entry point as the `swget`
// executable, run with libMallocInterposerSwift preloaded (LD_PRELOAD), counting from the first
// line of main until exit. At exit it writes one line, `mallocs=N bytes=N`, to the file named by
// SWGET_ALLOCATION_REPORT. Tests/swgetTests/AllocationGateTests.swift runs it twice with
// different amounts of work and gates the difference per file and per MiB.
import MallocInterposerSwift
import SwgetCLI
#if canImport(Glibc)
import Glibc
#endif

MallocInterposerSwift.initialize()
MallocInterposerSwift.hook()
atexit {
    MallocInterposerSwift.unhook()
    let statistics = MallocInterposerSwift.getStatistics()
    guard let path = getenv("SWGET_ALLOCATION_REPORT") else { return }
    let line = "mallocs=\(statistics.mallocCount) bytes=\(statistics.mallocBytesCount)\n"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    _ = line.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
    close(fd)
}
await Swget.main()
