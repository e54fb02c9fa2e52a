import Foundation
import Testing
@testable import SwgetCLI

@Suite("JSONProgress: one JSON object per line")
struct JSONProgressTests {
    static let url = "https://example.com/a.iso"

    static let lines: [(ProgressEvent, String)] = [
        (.start(url: url, name: "a.iso", expected: 1_048_576),
         #"{"event":"start","url":"https://example.com/a.iso","name":"a.iso","expected":1048576}"#),
        (.start(url: url, name: nil, expected: nil),
         #"{"event":"start","url":"https://example.com/a.iso"}"#),
        (.progress(url: url, received: 524_288, expected: 1_048_576, rate: 262_144.5),
         #"{"event":"progress","url":"https://example.com/a.iso","received":524288,"expected":1048576,"rate":262144.5}"#),
        (.progress(url: url, received: 0, expected: nil, rate: 0),
         #"{"event":"progress","url":"https://example.com/a.iso","received":0,"rate":0}"#),
        (.progress(url: url, received: 10, expected: nil, rate: 1234.56789),
         #"{"event":"progress","url":"https://example.com/a.iso","received":10,"rate":1234.568}"#),
        (.upload(url: url, sent: 524_288, expected: 1_048_576, rate: 262_144.5),
         #"{"event":"upload","url":"https://example.com/a.iso","sent":524288,"expected":1048576,"rate":262144.5}"#),
        (.upload(url: url, sent: 7, expected: nil, rate: 0),
         #"{"event":"upload","url":"https://example.com/a.iso","sent":7,"rate":0}"#),
        (.redirect(from: "http://example.com/a", to: "https://example.com/a", status: 301),
         #"{"event":"redirect","from":"http://example.com/a","to":"https://example.com/a","status":301}"#),
        (.retry(url: url, attempt: 2, delay: 1.5, error: "connection refused"),
         #"{"event":"retry","url":"https://example.com/a.iso","attempt":2,"delay":1.5,"error":"connection refused"}"#),
        (.retry(url: url, attempt: nil, delay: 10, error: "timed out"),
         #"{"event":"retry","url":"https://example.com/a.iso","delay":10,"error":"timed out"}"#),
        (.resume(url: url, offset: 4_096, expected: 1_048_576),
         #"{"event":"resume","url":"https://example.com/a.iso","offset":4096,"expected":1048576}"#),
        (.resume(url: url, offset: 1, expected: nil),
         #"{"event":"resume","url":"https://example.com/a.iso","offset":1}"#),
        (.finish(url: url, path: "a.iso", bytes: 1_048_576, decodedBytes: nil, seconds: 2.5, status: 200),
         #"{"event":"finish","url":"https://example.com/a.iso","path":"a.iso","bytes":1048576,"seconds":2.5,"status":200}"#),
        (.finish(url: url, path: "/tmp/x.json", bytes: 300, decodedBytes: 1_200, seconds: 0.0004, status: 206),
         #"{"event":"finish","url":"https://example.com/a.iso","path":"/tmp/x.json","bytes":300,"decodedBytes":1200,"seconds":0,"status":206}"#),
        (.error(url: url, message: "404 Not Found", exitCode: 8),
         #"{"event":"error","url":"https://example.com/a.iso","message":"404 Not Found","exitCode":8}"#),
        (.error(url: "", message: "", exitCode: ExitStatus.network.rawValue),
         #"{"event":"error","url":"","message":"","exitCode":4}"#),
    ]

    @Test(arguments: lines)
    func exactLines(_ event: ProgressEvent, _ json: String) {
        #expect(event.jsonLine() == json + "\n")
    }

    @Test(arguments: [
        ("plain", #""plain""#),
        (#"say "hi""#, #""say \"hi\"""#),
        (#"C:\dir\file"#, #""C:\\dir\\file""#),
        ("two\nlines", #""two\u000alines""#),
        ("tab\there", #""tab\u0009here""#),
        ("cr\r\nlf", #""cr\u000d\u000alf""#),
        ("\u{1}\u{1f}\u{0}", #""\u0001\u001f\u0000""#),
        ("\u{7f}", "\"\u{7f}\""),
        ("café", "\"café\""),
        ("e\u{301}", "\"e\u{301}\""),
        ("日本語.txt", "\"日本語.txt\""),
        ("😀 👍🏽", "\"😀 👍🏽\""),
        ("a/b</script>", #""a/b</script>""#),
        ("\u{2028}", "\"\u{2028}\""),
    ] as [(String, String)])
    func escaping(_ text: String, _ quoted: String) {
        #expect(ProgressEvent.quoted(text) == quoted)
        let line = ProgressEvent.error(url: text, message: text, exitCode: 1).jsonLine()
        let object = parse(line)
        #expect(object?["url"] as? String == text)
        #expect(object?["message"] as? String == text)
    }

    @Test(arguments: [(0, "0"), (-1, "0"), (.nan, "0"), (.infinity, "0"), (-.infinity, "0"), (0.0004, "0"),
                      (0.0005, "0.001"), (1, "1"), (2.5, "2.5"), (0.125, "0.125"), (0.1, "0.1"), (1.9996, "2"),
                      (1234.56789, "1234.568"), (1_048_576, "1048576"), (1e20, "9200000000000000000")]
          as [(Double, String)])
    func decimals(_ value: Double, _ text: String) {
        #expect(ProgressEvent.decimal(value) == text)
    }

    @Test(arguments: lines.map(\.0) + [
        .start(url: "https://例え.jp/ファイル?q=\"x\"", name: "tab\tname\u{1}", expected: Int64.max),
        .retry(url: "u", attempt: 0, delay: 0.001, error: "line1\nline2 \\ é 😀"),
        .progress(url: "u", received: Int64.max, expected: 0, rate: 9e15),
        .summary(files: 3, succeeded: 1, failed: 1, skipped: 1, bytes: 1 << 40, seconds: 12.5, exitCode: 130),
    ])
    func linesParseAndRoundTrip(_ event: ProgressEvent) throws {
        let line = event.jsonLine()
        #expect(line.hasSuffix("}\n"))
        #expect(line.dropLast().allSatisfy { $0 != "\n" })
        #expect(!line.contains(" \n") && !line.contains(": ") && !line.contains(", "))
        #expect(line.hasPrefix("{\"event\":\"\(event.eventName)\""))
        let object = try #require(parse(line))
        #expect(object["event"] as? String == event.eventName)
        switch event {
        case let .start(url, name, expected):
            #expect(object["url"] as? String == url)
            #expect(object["name"] as? String == name)
            #expect(int(object["expected"]) == expected)
            #expect(Set(object.keys) == Set(["event", "url"] + (name == nil ? [] : ["name"]) + (expected == nil ? [] : ["expected"])))
        case let .progress(url, received, expected, rate):
            #expect(object["url"] as? String == url)
            #expect(int(object["received"]) == received)
            #expect(int(object["expected"]) == expected)
            #expect(abs(double(object["rate"]) - rate) <= 0.0005 * max(1, rate / 1e12))
        case let .upload(url, sent, expected, rate):
            #expect(object["url"] as? String == url)
            #expect(int(object["sent"]) == sent)
            #expect(int(object["expected"]) == expected)
            #expect(abs(double(object["rate"]) - rate) <= 0.0005 * max(1, rate / 1e12))
        case let .redirect(from, to, status):
            #expect(object["from"] as? String == from)
            #expect(object["to"] as? String == to)
            #expect(int(object["status"]) == Int64(status))
        case let .retry(url, attempt, delay, error):
            #expect(object["url"] as? String == url)
            #expect(int(object["attempt"]) == attempt.map(Int64.init))
            #expect(abs(double(object["delay"]) - delay) <= 0.0005)
            #expect(object["error"] as? String == error)
        case let .resume(url, offset, expected):
            #expect(object["url"] as? String == url)
            #expect(int(object["offset"]) == offset)
            #expect(int(object["expected"]) == expected)
        case let .finish(url, path, bytes, decodedBytes, seconds, status):
            #expect(object["url"] as? String == url)
            #expect(object["path"] as? String == path)
            #expect(int(object["bytes"]) == bytes)
            #expect(int(object["decodedBytes"]) == decodedBytes)
            #expect(abs(double(object["seconds"]) - seconds) <= 0.0005)
            #expect(int(object["status"]) == Int64(status))
        case let .error(url, message, exitCode):
            #expect(object["url"] as? String == url)
            #expect(object["message"] as? String == message)
            #expect(int(object["exitCode"]) == Int64(exitCode))
        case let .summary(files, succeeded, failed, skipped, bytes, seconds, exitCode):
            #expect(int(object["files"]) == Int64(files))
            #expect(int(object["succeeded"]) == Int64(succeeded))
            #expect(int(object["failed"]) == Int64(failed))
            #expect(int(object["skipped"]) == Int64(skipped))
            #expect(int(object["bytes"]) == bytes)
            #expect(abs(double(object["seconds"]) - seconds) <= 0.0005)
            #expect(int(object["exitCode"]) == Int64(exitCode))
        }
    }

    @Test func throttleLetsOneEventPerSecondThrough() {
        var throttle = ProgressThrottle()
        let times = [5.0, 5.1, 5.99, 6.0, 6.5, 7.25, 7.75, 8.25, 20, 20.0001]
        #expect(times.map { throttle.shouldEmit(at: $0) } == [true, false, false, true, false, true, false, true, true, false])
    }

    @Test func throttleFirstCallPassesWhateverTheTime() {
        var throttle = ProgressThrottle()
        #expect([0.0, 0.0, 0.999].map { throttle.shouldEmit(at: $0) } == [true, false, false])
        var late = ProgressThrottle(interval: 0.25)
        #expect([1000, 1000.2, 1000.25].map { late.shouldEmit(at: $0) } == [true, false, true])
    }

    private func parse(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    private func int(_ value: Any?) -> Int64? {
        (value as? NSNumber)?.int64Value
    }

    private func double(_ value: Any?) -> Double {
        (value as? NSNumber)?.doubleValue ?? .nan
    }
}
