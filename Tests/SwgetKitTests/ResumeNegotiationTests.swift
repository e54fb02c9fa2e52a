#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import SwgetKit

@Suite("Resume protocol (pure)")
struct ResumeNegotiationTests {
    static func state(bytes: Int64 = 1000, etag: String? = "\"v1\"", modified: String? = nil, length: Int64? = 5000) -> ResumeData {
        ResumeData(originalURL: "http://h/f", finalURL: "http://h/f", etag: etag, lastModified: modified,
                   expectedLength: length, bytesOnDisk: bytes, partPath: "/tmp/f.part", finalPath: "/tmp/f")
    }

    typealias H = ResumeNegotiation.HeaderPair
    /// Resumed requests ask for the coding of the stored bytes: identity unless recorded.
    static let identity = H(name: "Accept-Encoding", value: "identity")

    static func stored(_ coding: String) -> ResumeData {
        var data = state()
        data.contentEncoding = coding
        return data
    }

    struct PlanCase: CustomTestStringConvertible, Sendable {
        let name: String
        let data: ResumeData
        let plan: ResumeNegotiation.Plan
        var testDescription: String { name }
    }

    static let plans: [PlanCase] = [
        PlanCase(name: "strong ETag", data: state(), plan: .resume(offset: 1000, headers: [H(name: "Range", value: "bytes=1000-"), identity, H(name: "If-Range", value: "\"v1\"")])),
        PlanCase(name: "ETag beats Last-Modified", data: state(modified: "Sun, 06 Nov 1994 08:49:37 GMT"),
                 plan: .resume(offset: 1000, headers: [H(name: "Range", value: "bytes=1000-"), identity, H(name: "If-Range", value: "\"v1\"")])),
        PlanCase(name: "weak ETag falls back to Last-Modified", data: state(etag: "W/\"v1\"", modified: "Sun, 06 Nov 1994 08:49:37 GMT"),
                 plan: .resume(offset: 1000, headers: [H(name: "Range", value: "bytes=1000-"), identity, H(name: "If-Range", value: "Sun, 06 Nov 1994 08:49:37 GMT")])),
        PlanCase(name: "weak ETag only: range checked by length", data: state(etag: "W/\"v1\""),
                 plan: .resume(offset: 1000, headers: [H(name: "Range", value: "bytes=1000-"), identity])),
        PlanCase(name: "no validator, known length", data: state(etag: nil), plan: .resume(offset: 1000, headers: [H(name: "Range", value: "bytes=1000-"), identity])),
        PlanCase(name: "no validator, unknown length", data: state(etag: nil, length: nil), plan: .fresh),
        PlanCase(name: "nothing on disk", data: state(bytes: 0), plan: .fresh),
        PlanCase(name: "stored gzip bytes ask for gzip", data: stored("gzip"),
                 plan: .resume(offset: 1000, headers: [H(name: "Range", value: "bytes=1000-"), H(name: "Accept-Encoding", value: "gzip"),
                                                       H(name: "If-Range", value: "\"v1\"")])),
    ]

    @Test(arguments: plans)
    func plan(_ c: PlanCase) { #expect(ResumeNegotiation.plan(for: c.data) == c.plan) }

    struct AnswerCase: CustomTestStringConvertible, Sendable {
        let name: String
        let data: ResumeData
        let status: Int
        let headers: [(String, String)]
        let outcome: String   // append, restartBody, restartRequest, complete, na
        var testDescription: String { name }
    }

    static let answers: [AnswerCase] = [
        AnswerCase(name: "206 matching", data: state(), status: 206, headers: [("Content-Range", "bytes 1000-4999/5000"), ("ETag", "\"v1\"")], outcome: "append"),
        AnswerCase(name: "206 unknown total", data: state(), status: 206, headers: [("Content-Range", "bytes 1000-4999/*")], outcome: "append"),
        AnswerCase(name: "206 wrong start", data: state(), status: 206, headers: [("Content-Range", "bytes 0-4999/5000")], outcome: "restartRequest"),
        AnswerCase(name: "206 later start", data: state(), status: 206, headers: [("Content-Range", "bytes 2000-4999/5000")], outcome: "restartRequest"),
        AnswerCase(name: "206 length changed", data: state(), status: 206, headers: [("Content-Range", "bytes 1000-5999/6000")], outcome: "restartRequest"),
        AnswerCase(name: "206 new ETag", data: state(), status: 206, headers: [("Content-Range", "bytes 1000-4999/5000"), ("ETag", "\"v2\"")], outcome: "restartRequest"),
        AnswerCase(name: "206 new Last-Modified", data: state(etag: nil, modified: "Sun, 06 Nov 1994 08:49:37 GMT"), status: 206,
                   headers: [("Content-Range", "bytes 1000-4999/5000"), ("Last-Modified", "Mon, 07 Nov 1994 08:49:37 GMT")], outcome: "restartRequest"),
        AnswerCase(name: "206 no Content-Range", data: state(), status: 206, headers: [], outcome: "restartRequest"),
        AnswerCase(name: "206 garbage Content-Range", data: state(), status: 206, headers: [("Content-Range", "bytes 1000-x/5000")], outcome: "restartRequest"),
        AnswerCase(name: "206 multipart", data: state(), status: 206, headers: [("Content-Type", "multipart/byteranges; boundary=x")], outcome: "restartRequest"),
        AnswerCase(name: "206 without validators needs a total", data: state(etag: nil), status: 206, headers: [("Content-Range", "bytes 1000-4999/*")], outcome: "restartRequest"),
        AnswerCase(name: "206 in a coding we did not store", data: state(), status: 206,
                   headers: [("Content-Range", "bytes 1000-4999/5000"), ("Content-Encoding", "gzip")], outcome: "restartRequest"),
        AnswerCase(name: "206 identity said aloud", data: state(), status: 206,
                   headers: [("Content-Range", "bytes 1000-4999/5000"), ("Content-Encoding", "identity")], outcome: "append"),
        AnswerCase(name: "206 in the stored coding", data: stored("gzip"), status: 206,
                   headers: [("Content-Range", "bytes 1000-4999/5000"), ("Content-Encoding", "x-gzip")], outcome: "append"),
        AnswerCase(name: "206 without the stored coding", data: stored("gzip"), status: 206,
                   headers: [("Content-Range", "bytes 1000-4999/5000")], outcome: "restartRequest"),
        AnswerCase(name: "200 instead of 206", data: state(), status: 200, headers: [("Content-Length", "5000")], outcome: "restartBody"),
        AnswerCase(name: "416 already complete", data: state(bytes: 5000), status: 416, headers: [("Content-Range", "bytes */5000")], outcome: "complete"),
        AnswerCase(name: "416 shorter now", data: state(bytes: 5000), status: 416, headers: [("Content-Range", "bytes */3000")], outcome: "restartRequest"),
        AnswerCase(name: "416 without total", data: state(bytes: 5000), status: 416, headers: [], outcome: "restartRequest"),
        AnswerCase(name: "404 is not a resume answer", data: state(), status: 404, headers: [], outcome: "na"),
        AnswerCase(name: "503 is not a resume answer", data: state(), status: 503, headers: [], outcome: "na"),
    ]

    @Test(arguments: answers)
    func evaluate(_ c: AnswerCase) {
        let outcome = ResumeNegotiation.evaluate(status: c.status, headers: HeaderFields(c.headers), resuming: c.data)
        let kind: String = switch outcome {
        case .append(let offset): offset == c.data.bytesOnDisk ? "append" : "append at \(offset)"
        case .restartWithThisBody: "restartBody"
        case .restartWithNewRequest: "restartRequest"
        case .complete: "complete"
        case .notApplicable: "na"
        }
        #expect(kind == c.outcome)
    }

    @Test(arguments: [
        ("bytes 0-99/100", Int64?(0), Int64?(99), Int64?(100)), ("bytes 5-9/*", 5, 9, nil), ("bytes */42", nil, nil, 42),
        ("  Bytes 1-1/2 ", 1, 1, 2),
    ] as [(String, Int64?, Int64?, Int64?)])
    func contentRange(_ text: String, _ first: Int64?, _ last: Int64?, _ total: Int64?) throws {
        let range = try #require(ContentRange(text))
        #expect(range.first == first && range.last == last && range.total == total)
    }

    @Test(arguments: ["", "bytes", "bytes 5-4/10", "bytes 0-10/10", "bytes */*", "items 0-1/2", "bytes -1-2/3", "bytes 0-1", "bytes 99999999999999999999-1/2"])
    func badContentRange(_ text: String) { #expect(ContentRange(text) == nil) }

    @Test func resumeDataRoundTripsAndRefusesUnknownVersions() throws {
        var data = Self.state(modified: "Sun, 06 Nov 1994 08:49:37 GMT")
        data.contentEncoding = "deflate, gzip"
        let bytes = data.serialized()
        #expect(ResumeData(serialized: bytes) == data)
        var future = data
        future.version = 99
        #expect(ResumeData(serialized: future.serialized()) == nil)
        #expect(ResumeData(serialized: Array("{not json".utf8)) == nil)
        #expect(ResumeData(serialized: []) == nil)
    }
}

@Suite("Retry policy (pure)")
struct RetryPolicyTests {
    @Test(arguments: [408, 429, 500, 502, 503, 504])
    func transientStatuses(_ status: Int) { #expect(RetryPolicy.isTransient(status: status)) }

    @Test(arguments: [200, 206, 301, 400, 401, 403, 404, 410, 416, 501, 505])
    func permanentStatuses(_ status: Int) { #expect(!RetryPolicy.isTransient(status: status)) }

    @Test func errorClasses() {
        for error in [SessionError.connectFailed, .connectionClosed, .timedOut, .readTimedOut] {
            #expect(RetryPolicy.isTransient(error), "\(error)")
        }
        for error in [SessionError.tlsUntrusted, .tlsHandshake, .unsupportedURL, .fileIO, .badResponse, .headersTooLarge,
                      .redirectLoop, .cancelled, .unresolvableHost, .resourceTimedOut] {
            #expect(!RetryPolicy.isTransient(error), "\(error)")
        }
    }

    @Test func backoffDoublesUpToTheCapWithJitter() {
        var policy = RetryPolicy()
        policy.maxAttempts = 10
        policy.initialDelay = .seconds(1)
        policy.maxDelay = .seconds(10)
        #expect(policy.delay(afterAttempt: 1, retryAfter: nil, random: 0.999_999)! > .milliseconds(999))
        #expect(policy.delay(afterAttempt: 2, retryAfter: nil, random: 0) == .seconds(1))
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, random: 0) == .seconds(2))
        #expect(policy.delay(afterAttempt: 9, retryAfter: nil, random: 1) == .seconds(10))
        #expect(policy.delay(afterAttempt: 10, retryAfter: nil, random: 0) == nil)
        policy.maxAttempts = 0
        #expect(policy.delay(afterAttempt: 1000, retryAfter: nil, random: 0) == .seconds(5))
    }

    @Test func retryAfterIsHonoured() {
        let policy = RetryPolicy()
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(policy.delay(afterAttempt: 1, retryAfter: "7", now: now, random: 0) == .seconds(7))
        #expect(policy.delay(afterAttempt: 1, retryAfter: "Sun, 06 Nov 1994 08:50:07 GMT", now: now, random: 0) == .seconds(30))
        #expect(policy.delay(afterAttempt: 1, retryAfter: "Sun, 06 Nov 1994 08:00:00 GMT", now: now, random: 0) == .zero)
        #expect(policy.delay(afterAttempt: 1, retryAfter: "86400", now: now, random: 0) == nil)
        // Unparseable values fall back to the backoff.
        #expect(policy.delay(afterAttempt: 1, retryAfter: "soon", now: now, random: 0) == .milliseconds(500))
    }

    @Test(arguments: [("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777.0), ("Thu, 01 Jan 1970 00:00:00 GMT", 0), ("Tue, 29 Feb 2000 12:00:00 GMT", 951_825_600)])
    func httpDates(_ text: String, _ epoch: Double) {
        #expect(HTTPDate.parse(text)?.timeIntervalSince1970 == epoch)
    }

    @Test(arguments: [("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777.0), ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
                      ("Tue, 29 Feb 2000 12:00:00 GMT", 951_825_600), ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
                      // What the reader has always let through: any weekday word, the month in any
                      // case, runs of spaces or colons, one-digit fields, a sign.
                      ("x 06 NOV 1994 08:49:37 GMT", 784_111_777), ("Sun,  06 nOv 1994   8:49:37 GMT", 784_111_777),
                      ("Sun, 06 Nov 1994 08::49:37 GMT", 784_111_777), ("Sun, +6 Nov 1994 08:49:37 GMT", 784_111_777)])
    func moreHTTPDates(_ text: String, _ epoch: Double) {
        #expect(HTTPDate.parse(text)?.timeIntervalSince1970 == epoch)
    }

    @Test(arguments: ["", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 PST",
                      "Sun, 06 Nov 1994 08:49:37 GMT x", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Nov 1994 08:49:37:01 GMT",
                      "Sun, 06 Novem 1994 08:49:37 GMT", "Sun, 06 No 1994 08:49:37 GMT", "Sun, 0x6 Nov 1994 08:49:37 GMT",
                      "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 gmt", "Sun, - Nov 1994 08:49:37 GMT",
                      // A hostile year overflowed the day count and crashed the reader.
                      "Sun, 06 Nov 99999999999999999 08:49:37 GMT", "Sun, 06 Nov -5 08:49:37 GMT", "Sun, 06 Nov 0 08:49:37 GMT",
                      "Sun, 06 Nov 1994 99999999999999999999:49:37 GMT"])
    func badHTTPDates(_ text: String) { #expect(HTTPDate.parse(text) == nil) }
}
