// FTP control replies and directory listings (LIST and MLSD), fed in random cuts. Property: the
// cut points change nothing: the whole stream and the cut stream give the same replies or
// entries and the same error.
import FuzzSupport
import SwgetKit

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(data, size))
    let mode = reader.byte()
    let cuts = (0..<Int(reader.byte() & 7)).map { _ in reader.byte() }
    let body = reader.rest
    let pieces = FuzzReader.split(body, cuts: cuts)
    switch mode % 3 {
    case 0:
        let whole = FuzzEntry.ftpReplies([body]), cut = FuzzEntry.ftpReplies(pieces)
        require(whole.error == cut.error, "reply error depends on cuts")
        require(whole.replies.map { "\($0.code) \($0.lines)" } == cut.replies.map { "\($0.code) \($0.lines)" },
                "replies depend on cuts")
        for reply in whole.replies { require((100...599).contains(reply.code), "reply code \(reply.code)") }
    default:
        let mlsd = mode % 3 == 1
        let whole = FuzzEntry.ftpListing([body], mlsd: mlsd), cut = FuzzEntry.ftpListing(pieces, mlsd: mlsd)
        require(whole.error == cut.error, "listing error depends on cuts")
        require(whole.entries.map { "\($0)" } == cut.entries.map { "\($0)" }, "entries depend on cuts")
        for entry in whole.entries {
            require(!entry.name.isEmpty && !entry.name.contains("/") && entry.name != "." && entry.name != "..",
                    "listing name \(entry.name.debugDescription)")
        }
    }
    return 0
}

runFuzzer(fuzzOne)
