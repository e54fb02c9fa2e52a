import Testing
@testable import SwgetKit

@Suite("HTTP CONNECT handshake (pure)")
struct HTTPConnectHandshakeTests {
    typealias Parser = HTTPConnectHandshake.ResponseParser
    typealias Head = HTTPConnectHandshake.ResponseHead

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    // MARK: request

    @Test func requestForANameWithEverything() throws {
        let handshake = try HTTPConnectHandshake(host: "example.com", port: 443, proxyAuthorization: "Basic dTpw",
                                                 userAgent: "swget/1.0", additionalHeaders: ["X-Trace": "1"])
        #expect(String(decoding: handshake.request, as: UTF8.self) ==
            "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nProxy-Authorization: Basic dTpw\r\nUser-Agent: swget/1.0\r\nX-Trace: 1\r\n\r\n")
    }

    @Test(arguments: [
        ("::1", 8443, "[::1]:8443"), ("[::1]", 443, "[::1]:443"), ("fe80::1%eth0", 443, "[fe80::1]:443"),
        ("10.0.0.1", 80, "10.0.0.1:80"), ("Example.COM", 1, "Example.COM:1"),
    ])
    func authority(_ host: String, _ port: Int, _ expected: String) throws {
        let handshake = try HTTPConnectHandshake(host: host, port: port)
        #expect(handshake.authority == expected)
        #expect(String(decoding: handshake.request, as: UTF8.self) == "CONNECT \(expected) HTTP/1.1\r\nHost: \(expected)\r\n\r\n")
    }

    @Test(arguments: [
        ("", 443), ("example.com", 0), ("example.com", 65536), ("exa mple.com", 443), ("example.com\r\nX: y", 443),
        ("a/b", 443), ("user@host", 443), ("::zz", 443), ("bücher.de", 443), (String(repeating: "a", count: 300), 443),
    ])
    func unusableTargets(_ host: String, _ port: Int) {
        #expect {
            _ = try HTTPConnectHandshake(host: host, port: port)
        } throws: { error in
            if case .invalidTarget = error as? ProxyHandshakeError { return true }
            return false
        }
    }

    @Test(arguments: ["Basic x\r\nX-Injected: 1", "a\nb", "nul\u{0}", "del\u{7F}", String(repeating: "a", count: 20_000)])
    func headerInjectionIsRefused(_ value: String) {
        #expect(throws: ProxyHandshakeError.self) { try HTTPConnectHandshake(host: "h", port: 1, proxyAuthorization: value) }
        #expect(throws: ProxyHandshakeError.self) { try HTTPConnectHandshake(host: "h", port: 1, userAgent: value) }
        #expect(throws: ProxyHandshakeError.self) { try HTTPConnectHandshake(host: "h", port: 1, additionalHeaders: ["X": value]) }
        #expect(throws: ProxyHandshakeError.self) { try HTTPConnectHandshake(host: "h", port: 1, additionalHeaders: ["Bad Name": "v"]) }
    }

    // MARK: answers

    struct AnswerCase: CustomTestStringConvertible, Sendable {
        let name: String
        let answer: [UInt8]
        let outcome: HTTPConnectHandshake.Outcome
        var testDescription: String { name }
    }

    static func head(_ status: Int, _ reason: String, _ headers: [(String, String)] = [], version: String = "HTTP/1.1") -> Head {
        Head(version: version, status: status, reasonPhrase: reason, headers: HeaderFields(headers))
    }

    static let answers: [AnswerCase] = [
        AnswerCase(name: "200", answer: bytes("HTTP/1.1 200 Connection established\r\n\r\n"),
                   outcome: .established(head(200, "Connection established"), leftover: [])),
        AnswerCase(name: "200 with tunnel bytes behind", answer: bytes("HTTP/1.0 200 OK\r\nVia: p\r\n\r\n") + [0x16, 0x03, 0x01, 0x00, 0x0D, 0x0A],
                   outcome: .established(head(200, "OK", [("Via", "p")], version: "HTTP/1.0"), leftover: [0x16, 0x03, 0x01, 0x00, 0x0D, 0x0A])),
        AnswerCase(name: "2xx other than 200", answer: bytes("HTTP/1.1 204 No Content\r\n\r\n"), outcome: .established(head(204, "No Content"), leftover: [])),
        AnswerCase(name: "200 with Content-Length ignored", answer: bytes("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabc"),
                   outcome: .established(head(200, "OK", [("Content-Length", "5")]), leftover: bytes("abc"))),
        AnswerCase(name: "bare LF line ends", answer: bytes("HTTP/1.1 200 OK\nA: b\n\nX"), outcome: .established(head(200, "OK", [("A", "b")]), leftover: bytes("X"))),
        AnswerCase(name: "no reason phrase", answer: bytes("HTTP/1.1 200\r\n\r\n"), outcome: .established(head(200, ""), leftover: [])),
        AnswerCase(name: "interim 100 then 200", answer: bytes("HTTP/1.1 100 Continue\r\nX: 1\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"),
                   outcome: .established(head(200, "OK"), leftover: [])),
        AnswerCase(name: "obs-fold joined", answer: bytes("HTTP/1.1 200 OK\r\nA: one\r\n  two\r\n\r\n"), outcome: .established(head(200, "OK", [("A", "one two")]), leftover: [])),
        AnswerCase(name: "407 with two challenges", answer: bytes("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"p\"\r\nproxy-authenticate: Digest realm=\"p\", nonce=\"n\"\r\nContent-Length: 10\r\n\r\n0123456789"),
                   outcome: .authenticationRequired(head(407, "Proxy Authentication Required", [("Proxy-Authenticate", "Basic realm=\"p\""),
                                                                                             ("proxy-authenticate", "Digest realm=\"p\", nonce=\"n\""), ("Content-Length", "10")]))),
        AnswerCase(name: "502", answer: bytes("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n"), outcome: .refused(head(502, "Bad Gateway", [("Content-Length", "0")]))),
        AnswerCase(name: "403", answer: bytes("HTTP/1.1 403 Forbidden\r\n\r\n"), outcome: .refused(head(403, "Forbidden"))),
        AnswerCase(name: "101 is not a tunnel", answer: bytes("HTTP/1.1 101 Switching Protocols\r\n\r\n"), outcome: .refused(head(101, "Switching Protocols"))),
        AnswerCase(name: "301", answer: bytes("HTTP/1.1 301 Moved\r\nLocation: /\r\n\r\n"), outcome: .refused(head(301, "Moved", [("Location", "/")]))),
        AnswerCase(name: "garbage", answer: bytes("SSH-2.0-OpenSSH_9.2\r\n"), outcome: .malformed("not an HTTP/1.x status line: 'SSH-2.0-OpenSSH_9.2'")),
        AnswerCase(name: "HTTP/2 preface", answer: bytes("HTTP/2 200\r\n\r\n"), outcome: .malformed("not an HTTP/1.x status line: 'HTTP/2 200'")),
        AnswerCase(name: "binary garbage", answer: [0x05, 0x00, 0xFF, 0x0A], outcome: .malformed("not an HTTP/1.x status line: '???'")),
        AnswerCase(name: "empty line first", answer: bytes("\r\nHTTP/1.1 200 OK\r\n\r\n"), outcome: .malformed("empty line where the status line belongs")),
        AnswerCase(name: "status 600", answer: bytes("HTTP/1.1 600 Odd\r\n\r\n"), outcome: .malformed("bad status code '600'")),
        AnswerCase(name: "status 2x0", answer: bytes("HTTP/1.1 2x0 Odd\r\n\r\n"), outcome: .malformed("bad status code '2x0'")),
        AnswerCase(name: "no space after status", answer: bytes("HTTP/1.1 200OK\r\n\r\n"), outcome: .malformed("bad status line: no space after the status code")),
        AnswerCase(name: "control in reason", answer: bytes("HTTP/1.1 200 O\u{1}K\r\n\r\n"), outcome: .malformed("control character in the reason phrase")),
        AnswerCase(name: "header without colon", answer: bytes("HTTP/1.1 200 OK\r\nnocolon\r\n\r\n"), outcome: .malformed("header line without ':'")),
        AnswerCase(name: "space before colon", answer: bytes("HTTP/1.1 200 OK\r\nName : v\r\n\r\n"), outcome: .malformed("invalid header name")),
        AnswerCase(name: "empty header name", answer: bytes("HTTP/1.1 200 OK\r\n: v\r\n\r\n"), outcome: .malformed("invalid header name")),
        AnswerCase(name: "NUL in header", answer: bytes("HTTP/1.1 200 OK\r\nA: b\u{0}c\r\n\r\n"), outcome: .malformed("control character in a header line")),
        AnswerCase(name: "lone CR in header", answer: bytes("HTTP/1.1 200 OK\r\nA: b\rc\r\n\r\n"), outcome: .malformed("control character in a header line")),
        AnswerCase(name: "fold before any header", answer: bytes("HTTP/1.1 200 OK\r\n folded\r\n\r\n"), outcome: .malformed("continuation line before any header")),
    ]

    /// Every answer fed whole, byte by byte, and split in two at every position gives one outcome.
    @Test(arguments: answers)
    func answerInAnyPieces(_ c: AnswerCase) {
        var whole = Parser()
        #expect(whole.parse(c.answer) == c.outcome)

        var single = Parser()
        var outcome: HTTPConnectHandshake.Outcome?
        for byte in c.answer where outcome == nil {
            outcome = single.parse([byte])
        }
        #expect(outcome == Self.expectedByteByByte(c))

        for cut in 0...c.answer.count {
            var split = Parser()
            let first = split.parse(c.answer[..<cut])
            let result = first.map { Self.joiningLeftover($0, rest: Array(c.answer[cut...])) } ?? split.parse(c.answer[cut...])
            #expect(result == c.outcome, "cut at \(cut)")
        }
    }

    /// Byte by byte the outcome comes at the head's last byte, so tunnel bytes arrive later.
    static func expectedByteByByte(_ c: AnswerCase) -> HTTPConnectHandshake.Outcome {
        if case .established(let head, _) = c.outcome { return .established(head, leftover: []) }
        return c.outcome
    }

    static func joiningLeftover(_ outcome: HTTPConnectHandshake.Outcome, rest: [UInt8]) -> HTTPConnectHandshake.Outcome {
        if case .established(let head, let leftover) = outcome { return .established(head, leftover: leftover + rest) }
        return outcome
    }

    @Test func incompleteAnswersWait() {
        for text in ["", "HTTP/1.1 200 OK", "HTTP/1.1 200 OK\r\n", "HTTP/1.1 200 OK\r\nA: b\r\n", "HTTP/1.1 200 OK\r\n\r"] {
            var parser = Parser()
            #expect(parser.parse(Self.bytes(text)) == nil, "\(text.debugDescription)")
            #expect(parser.bytesReceived == text.utf8.count)
        }
    }

    @Test func overLongHeadIsMalformedOnceCertain() {
        var parser = Parser(maximumHeadBytes: 1024)
        #expect(parser.parse(Self.bytes("HTTP/1.1 200 OK\r\n")) == nil)
        let line = "X-Pad: aaaaaaaaaaaaaaaaaaaaaaaaa\r\n"
        var outcome: HTTPConnectHandshake.Outcome?
        var fed = 17
        while outcome == nil, fed < 10_000 {
            outcome = parser.parse(Self.bytes(line))
            fed += line.utf8.count
        }
        #expect(outcome == .malformed("the answer head is longer than 1024 bytes"))
        #expect(fed > 1024 && fed <= 1024 + line.utf8.count)

        var endless = Parser(maximumHeadBytes: 1024)
        #expect(endless.parse(Self.bytes("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 1000))) == nil)
        #expect(endless.parse(Self.bytes(String(repeating: "a", count: 100))) == .malformed("the answer head is longer than 1024 bytes"))
    }

    @Test func headExactlyAtTheBoundIsAccepted() {
        let prefix = "HTTP/1.1 200 OK\r\nX: "
        let filler = String(repeating: "a", count: 100 - prefix.utf8.count - 4)
        let answer = Self.bytes(prefix + filler + "\r\n\r\n")
        #expect(answer.count == 100)
        var exact = Parser(maximumHeadBytes: 100)
        #expect(exact.parse(answer + [1, 2]) == .established(Self.head(200, "OK", [("X", filler)]), leftover: [1, 2]))
        var short = Parser(maximumHeadBytes: 99)
        #expect(short.parse(answer) == .malformed("the answer head is longer than 99 bytes"))
    }

    @Test func manyInterimHeadsCountTowardsTheBound() {
        var parser = Parser(maximumHeadBytes: 4096)
        var outcome: HTTPConnectHandshake.Outcome?
        for _ in 0..<1000 where outcome == nil {
            outcome = parser.parse(Self.bytes("HTTP/1.1 100 Continue\r\n\r\n"))
        }
        #expect(outcome == .malformed("the answer head is longer than 4096 bytes"))
    }

    @Test func feedingAfterTheOutcomeIsRefused() {
        var parser = Parser()
        #expect(parser.parse(Self.bytes("HTTP/1.1 200 OK\r\n\r\n")) == .established(Self.head(200, "OK"), leftover: []))
        #expect(parser.parse(Self.bytes("more")) == .malformed("data fed after the answer was complete"))
    }

    // MARK: as a machine

    @Test func machineMapsOutcomesToSteps() throws {
        var machine = try HTTPConnectHandshake(host: "h", port: 443)
        #expect(machine.connectionClosed() == .connectionClosed("before answering CONNECT h:443"))
        #expect(machine.start() == ProxyHandshakeStep(write: machine.request, result: .needMoreData))
        let partial = "HTTP/1.1 407 Auth\r\nProxy-Authenticate: Basic realm=x\r\n"
        #expect(machine.receive(Self.bytes(partial)) == ProxyHandshakeStep(result: .needMoreData))
        #expect(machine.connectionClosed() == .connectionClosed("in the middle of its answer to CONNECT h:443 (\(partial.utf8.count) bytes received)"))
        let step = machine.receive(Self.bytes("\r\n"))
        guard case .failed(.proxyAuthenticationRequired(let head)) = step.result else {
            Issue.record("expected a 407, got \(step)")
            return
        }
        #expect(head.proxyAuthenticate == ["Basic realm=x"])
        #expect(head.statusLine == "HTTP/1.1 407 Auth")
        #expect(ProxyHandshakeError.proxyAuthenticationRequired(head).isAuthenticationFailure)

        var refused = try HTTPConnectHandshake(host: "h", port: 443)
        _ = refused.start()
        #expect(refused.receive(Self.bytes("HTTP/1.1 502 Bad Gateway\r\n\r\n")).result == .failed(.connectRefused(Self.head(502, "Bad Gateway"))))
        #expect("\(ProxyHandshakeError.connectRefused(Self.head(502, "Bad Gateway")))" == "the proxy refused CONNECT: HTTP/1.1 502 Bad Gateway")
        #expect(!ProxyHandshakeError.connectRefused(Self.head(502, "Bad Gateway")).isAuthenticationFailure)
        #expect(ProxyHandshakeError.connectRefused(Self.head(401, "Unauthorized", version: "HTTP/1.0")).isAuthenticationFailure)

        var ok = try HTTPConnectHandshake(host: "h", port: 443)
        _ = ok.start()
        #expect(ok.start().result == .failed(.malformedResponse("handshake started twice")))
        #expect(ok.receive(Self.bytes("HTTP/1.1 200 OK\r\n\r\nTLS")).result == .established(.httpConnect(Self.head(200, "OK")), leftover: Self.bytes("TLS")))
    }

    @Test func nonUTF8HeaderValuesDoNotCrash() {
        var parser = Parser()
        let answer = Self.bytes("HTTP/1.1 407 Auth \u{E9}\r\nProxy-Authenticate: Basic realm=") + [0xFF, 0xFE] + Self.bytes("\r\n\r\n")
        guard case .authenticationRequired(let head) = parser.parse(answer) else {
            Issue.record("expected a 407")
            return
        }
        #expect(head.reasonPhrase == "Auth é")
        #expect(head.proxyAuthenticate.count == 1)
    }
}
