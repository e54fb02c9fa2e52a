import SwgetKit

/// FTP control replies and directory listings (LIST and MLSD), fed in random cuts. Property: the
/// cut points change nothing: the whole stream and the cut stream give the same replies or
/// entries and the same error; reply codes are 100...599; listing names are one path component.
enum FTPProperty {
    static func check(_ input: [UInt8]) throws(PropertyFailure) {
        var reader = FuzzReader(input)
        let mode = reader.byte()
        let cuts = (0..<Int(reader.byte() & 7)).map { _ in reader.byte() }
        let body = reader.rest
        let pieces = FuzzReader.split(body, cuts: cuts)
        switch mode % 3 {
        case 0:
            let whole = FuzzEntry.ftpReplies([body]), cut = FuzzEntry.ftpReplies(pieces)
            try require(whole.error == cut.error, "reply error depends on cuts")
            try require(whole.replies.map { "\($0.code) \($0.lines)" } == cut.replies.map { "\($0.code) \($0.lines)" },
                        "replies depend on cuts")
            for reply in whole.replies { try require((100...599).contains(reply.code), "reply code \(reply.code)") }
        default:
            let mlsd = mode % 3 == 1
            let whole = FuzzEntry.ftpListing([body], mlsd: mlsd), cut = FuzzEntry.ftpListing(pieces, mlsd: mlsd)
            try require(whole.error == cut.error, "listing error depends on cuts")
            try require(whole.entries.map { "\($0)" } == cut.entries.map { "\($0)" }, "entries depend on cuts")
            for entry in whole.entries {
                try require(!entry.name.isEmpty && !entry.name.contains("/") && entry.name != "." && entry.name != "..",
                            "listing name \(entry.name.debugDescription)")
            }
        }
    }
}
