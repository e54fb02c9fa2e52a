import Testing
@testable import SwgetKit

@Suite("FTP resume check (SIZE and MDTM as validators)")
struct FTPResumeCheckTests {
    typealias Stored = FTPResumeCheck.Stored
    typealias Info = FTPControlMachine.FileInfo

    static let t1 = FTPTimestamp(timeVal: "20200101120000")
    static let t1Fraction = FTPTimestamp(timeVal: "20200101120000.250")
    static let t2 = FTPTimestamp(timeVal: "20200101120001")

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let stored: Stored
        let current: Info
        let decision: String   // fresh, resume@N, restart, complete
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "nothing on disk", stored: Stored(bytesOnDisk: 0, size: 1000, modified: "20200101120000"),
             current: Info(size: 1000, modified: t1), decision: "fresh"),
        Case(name: "same size and time", stored: Stored(bytesOnDisk: 400, size: 1000, modified: "20200101120000"),
             current: Info(size: 1000, modified: t1), decision: "resume@400"),
        Case(name: "same second, other fraction", stored: Stored(bytesOnDisk: 400, size: 1000, modified: "20200101120000"),
             current: Info(size: 1000, modified: t1Fraction), decision: "resume@400"),
        Case(name: "size changed", stored: Stored(bytesOnDisk: 400, size: 1000, modified: "20200101120000"),
             current: Info(size: 1001, modified: t1), decision: "restart"),
        Case(name: "time changed", stored: Stored(bytesOnDisk: 400, size: 1000, modified: "20200101120000"),
             current: Info(size: 1000, modified: t2), decision: "restart"),
        Case(name: "size only, same", stored: Stored(bytesOnDisk: 400, size: 1000), current: Info(size: 1000), decision: "resume@400"),
        Case(name: "size only, server adds a time", stored: Stored(bytesOnDisk: 400, size: 1000), current: Info(size: 1000, modified: t1),
             decision: "resume@400"),
        Case(name: "time only, same, size unknown", stored: Stored(bytesOnDisk: 400, modified: "20200101120000"),
             current: Info(modified: t1), decision: "resume@400"),
        Case(name: "stored size no longer reported", stored: Stored(bytesOnDisk: 400, size: 1000, modified: "20200101120000"),
             current: Info(modified: t1), decision: "restart"),
        Case(name: "stored time no longer reported", stored: Stored(bytesOnDisk: 400, size: 1000, modified: "20200101120000"),
             current: Info(size: 1000), decision: "restart"),
        Case(name: "stored time unreadable", stored: Stored(bytesOnDisk: 400, size: 1000, modified: "Sun, 06 Nov 1994 08:49:37 GMT"),
             current: Info(size: 1000, modified: t1), decision: "restart"),
        Case(name: "no validators", stored: Stored(bytesOnDisk: 400), current: Info(size: 1000, modified: t1), decision: "restart"),
        Case(name: "no validators, -c on a foreign file", stored: Stored(bytesOnDisk: 400, acceptsUnvalidated: true),
             current: Info(size: 1000), decision: "resume@400"),
        Case(name: "no validators, -c, nothing known now", stored: Stored(bytesOnDisk: 400, acceptsUnvalidated: true),
             current: Info(), decision: "resume@400"),
        Case(name: "-c, foreign file longer than the server's", stored: Stored(bytesOnDisk: 2000, acceptsUnvalidated: true),
             current: Info(size: 1000), decision: "restart"),
        Case(name: "all bytes here", stored: Stored(bytesOnDisk: 1000, size: 1000, modified: "20200101120000"),
             current: Info(size: 1000, modified: t1), decision: "complete"),
        Case(name: "-c, foreign file complete", stored: Stored(bytesOnDisk: 1000, acceptsUnvalidated: true),
             current: Info(size: 1000), decision: "complete"),
    ]

    @Test(arguments: cases)
    func decide(_ c: Case) {
        let decision = switch FTPResumeCheck.decide(c.stored, current: c.current) {
        case .fresh: "fresh"
        case .resume(let offset): "resume@\(offset)"
        case .restart: "restart"
        case .complete: "complete"
        }
        #expect(decision == c.decision)
    }

    @Test func readsResumeData() {
        var data = ResumeData(originalURL: "ftp://h/f", finalURL: "ftp://h/f", etag: nil, lastModified: "20200101120000",
                              expectedLength: 1000, bytesOnDisk: 400, partPath: "/tmp/f.part", finalPath: "/tmp/f")
        data.acceptsUnvalidatedRange = true
        #expect(Stored(data) == Stored(bytesOnDisk: 400, size: 1000, modified: "20200101120000", acceptsUnvalidated: true))
    }
}
