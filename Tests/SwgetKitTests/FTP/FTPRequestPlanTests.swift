import Foundation
import Testing
@testable import SwgetKit

@Suite("FTP requests read as jobs, answers as HTTP-like heads")
struct FTPRequestPlanTests {
    static func plan(_ url: String, method: String = "GET", _ headers: HeaderFields = [:]) throws -> FTPRequestPlan {
        var request = try #require(Request(string: url))
        request.method = method
        request.headers = headers
        return try FTPRequestPlan(request)
    }

    @Test func jobs() throws {
        #expect(try Self.plan("ftp://h/pub/file.iso").job == .retrieve(try FTPPath(urlPath: "/pub/file.iso")))
        #expect(try Self.plan("ftp://h/pub/").job == .list(try FTPPath(urlPath: "/pub/")))
        #expect(try Self.plan("ftp://h/pub;type=d").job == .list(try FTPPath(urlPath: "/pub;type=d")))
        #expect(try Self.plan("ftp://h/pub/file.iso", method: "HEAD").job == .probe(try FTPPath(urlPath: "/pub/file.iso")))
        #expect(try Self.plan("ftp://h/").job == .list(try FTPPath(urlPath: "/")))
    }

    @Test(arguments: ["PUT", "POST", "DELETE"])
    func refusesOtherMethods(_ method: String) {
        #expect(throws: SessionError.unsupportedURL) { try Self.plan("ftp://h/f", method: method) }
    }

    @Test(arguments: ["ftp://h/a%0D%0ADELE%20x", "ftp://h/a%0Ab", "ftp://h/a%00b", "ftp://h/%FF"])
    func refusesHostilePaths(_ url: String) {
        #expect(throws: SessionError.unsupportedURL) { try Self.plan(url) }
    }

    @Test(arguments: [
        (String?.none, FTPRequestPlan.ListingForm.htmlIndex), ("*/*", .htmlIndex), ("text/plain", .raw),
        ("text/plain;q=0.9, text/html", .raw), ("text/html, text/plain", .htmlIndex), ("application/json", .htmlIndex),
        (" TEXT/PLAIN ", .raw),
    ])
    func listingForms(_ accept: String?, _ form: FTPRequestPlan.ListingForm) {
        #expect(FTPRequestPlan.listingForm(accept: accept) == form)
    }

    static let mdtm = FTPTimestamp(timeVal: "20240102030405")
    static let httpDate = "Tue, 02 Jan 2024 03:04:05 GMT"

    @Test func storedStateFromTheRange() {
        typealias Stored = FTPResumeCheck.Stored
        #expect(FTPRequestPlan.stored(RangeRequest(offset: 0, ifRange: nil)) == Stored(bytesOnDisk: 0))
        #expect(FTPRequestPlan.stored(RangeRequest(offset: 9, ifRange: nil)) == Stored(bytesOnDisk: 9, acceptsUnvalidated: true))
        #expect(FTPRequestPlan.stored(RangeRequest(offset: 9, ifRange: Self.httpDate)) == Stored(bytesOnDisk: 9, modified: "20240102030405"))
        #expect(FTPRequestPlan.stored(RangeRequest(offset: 9, ifRange: "\"etag\"")) == Stored(bytesOnDisk: 9, modified: ""))
        #expect(FTPRequestPlan.stored(RangeRequest(offset: 9, ifRange: "Tue, 99 Jan 2024 03:04:05 GMT")).modified == "")
    }

    struct DecisionCase: Sendable, CustomTestStringConvertible {
        let name: String
        let headers: HeaderFields
        let info: FTPControlMachine.FileInfo
        let decision: FTPRequestPlan.Decision
        var testDescription: String { name }
    }

    @Test(arguments: [
        DecisionCase(name: "fresh", headers: [:], info: .init(size: 100, modified: mdtm), decision: .transfer(from: 0)),
        DecisionCase(name: "resume, same MDTM", headers: ["Range": "bytes=40-", "If-Range": httpDate],
                     info: .init(size: 100, modified: mdtm), decision: .transfer(from: 40)),
        DecisionCase(name: "file changed", headers: ["Range": "bytes=40-", "If-Range": httpDate],
                     info: .init(size: 100, modified: FTPTimestamp(timeVal: "20240102030406")), decision: .transfer(from: 0)),
        DecisionCase(name: "no MDTM now", headers: ["Range": "bytes=40-", "If-Range": httpDate],
                     info: .init(size: 100), decision: .transfer(from: 0)),
        DecisionCase(name: "an ETag cannot validate FTP", headers: ["Range": "bytes=40-", "If-Range": "\"x\""],
                     info: .init(size: 100, modified: mdtm), decision: .transfer(from: 0)),
        DecisionCase(name: "unvalidated (-c)", headers: ["Range": "bytes=40-"], info: .init(size: 100), decision: .transfer(from: 40)),
        DecisionCase(name: "unvalidated, no SIZE: whole", headers: ["Range": "bytes=40-"], info: .init(), decision: .transfer(from: 0)),
        DecisionCase(name: "complete", headers: ["Range": "bytes=100-", "If-Range": httpDate],
                     info: .init(size: 100, modified: mdtm), decision: .complete(size: 100)),
        DecisionCase(name: "more than the file", headers: ["Range": "bytes=101-"], info: .init(size: 100), decision: .transfer(from: 0)),
    ])
    func decides(_ c: DecisionCase) throws {
        #expect(try Self.plan("ftp://h/f", c.headers).decide(c.info) == c.decision)
    }

    @Test func retrievalHeads() throws {
        let url = try #require(URL(string: "ftp://h/f"))
        let info = FTPControlMachine.FileInfo(size: 100, modified: Self.mdtm)
        let whole = FTPAnswers.retrieval(url: url, info: info, offset: 0)
        #expect(whole.statusCode == 200 && whole.expectedContentLength == 100 && whole.httpVersion == "FTP")
        #expect(whole.headers["Last-Modified"] == Self.httpDate)
        let partial = FTPAnswers.retrieval(url: url, info: info, offset: 40)
        #expect(partial.statusCode == 206 && partial.headers["Content-Range"] == "bytes 40-99/100" && partial.expectedContentLength == 60)
        let unknown = FTPAnswers.retrieval(url: url, info: .init(), offset: 0)
        #expect(unknown.statusCode == 200 && unknown.expectedContentLength == nil && unknown.headers["Content-Length"] == nil)
        let complete = FTPAnswers.complete(url: url, info: info, size: 100)
        #expect(complete.statusCode == 416 && complete.headers["Content-Range"] == "bytes */100")
        let probe = FTPAnswers.probe(url: url, info: info)
        #expect(probe.statusCode == 200 && probe.headers["Content-Length"] == "100" && probe.expectedContentLength == 0)
        #expect(HTTPDate.parse(whole.headers["Last-Modified"] ?? "").map { Int64($0.timeIntervalSince1970) } == Self.mdtm?.secondsSince1970)
    }

    /// What the download machinery makes of the heads: a resume continues, a restart restarts.
    @Test func theMachineryAcceptsTheHeads() throws {
        let url = try #require(URL(string: "ftp://h/f"))
        let info = FTPControlMachine.FileInfo(size: 100, modified: Self.mdtm)
        var data = ResumeData(originalURL: "ftp://h/f", finalURL: "ftp://h/f", etag: nil, lastModified: Self.httpDate,
                              expectedLength: 100, bytesOnDisk: 40, partPath: "/tmp/f.part", finalPath: "/tmp/f")
        let partial = FTPAnswers.retrieval(url: url, info: info, offset: 40)
        #expect(ResumeNegotiation.evaluate(status: partial.statusCode, headers: partial.headers, resuming: data) == .append(offset: 40))
        let whole = FTPAnswers.retrieval(url: url, info: info, offset: 0)
        guard case .restartWithThisBody = ResumeNegotiation.evaluate(status: whole.statusCode, headers: whole.headers, resuming: data) else {
            Issue.record("a 200 must restart")
            return
        }
        data.bytesOnDisk = 100
        let complete = FTPAnswers.complete(url: url, info: info, size: 100)
        #expect(ResumeNegotiation.evaluate(status: complete.statusCode, headers: complete.headers, resuming: data) == .complete)
        guard case .resume(_, let headers) = ResumeNegotiation.plan(for: data) else {
            Issue.record("expected a resume plan")
            return
        }
        #expect(headers.contains { $0.name == "If-Range" && $0.value == Self.httpDate })
    }

    @Test(arguments: [
        (FTPFailure.Kind.authentication, SessionError.Category.authentication), (.notFound, .httpStatus), (.serverError, .httpStatus),
        (.transient, .network), (.network, .network), (.protocolViolation, .protocol), (.tls, .tls), (.unsupported, .usage),
    ])
    func errors(_ kind: FTPFailure.Kind, _ category: SessionError.Category) {
        let error = FTPAnswers.error(FTPFailure(kind, "550 no\u{1B}[31m such file"))
        #expect(error.category == category)
        #expect(!error.message.contains("\u{1B}"))
        #expect(error.response == nil)
    }

    @Test func ftpStatusIsNotRetried() {
        #expect(!TaskAttempts.isTransient(SessionError.ftpStatus))
        #expect(TaskAttempts.isTransient(FTPAnswers.error(FTPFailure(.transient, "426 aborted"))))
    }
}
