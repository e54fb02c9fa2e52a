import Glibc
import NIOCore
import Testing
@testable import SwgetKit

/// The one line a failed connection becomes: the host as people read it, with its port.
@Suite("Connect error messages")
struct ConnectErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let host: String
        let port: Int
        let refused: String
        let timedOut: String
        var testDescription: String { "\(host):\(port)" }
    }

    @Test(arguments: [
        Case(host: "127.0.0.1", port: 8080, refused: "cannot connect to 127.0.0.1:8080: Connection refused",
             timedOut: "connecting to 127.0.0.1:8080 timed out"),
        // An IPv6 address in brackets, or its last group would read as the port.
        Case(host: "::1", port: 1, refused: "cannot connect to [::1]:1: Connection refused",
             timedOut: "connecting to [::1]:1 timed out"),
        Case(host: "2001:db8::5", port: 443, refused: "cannot connect to [2001:db8::5]:443: Connection refused",
             timedOut: "connecting to [2001:db8::5]:443 timed out"),
        // An internationalised name in Unicode, as typed.
        Case(host: "xn--bcher-kva.example", port: 80, refused: "cannot connect to bücher.example:80: Connection refused",
             timedOut: "connecting to bücher.example:80 timed out"),
    ])
    func messageNamesTheEndpoint(_ c: Case) {
        let refused = HTTPConnection.connectError(IOError(errnoCode: ECONNREFUSED, reason: "connect"), host: c.host, port: c.port)
        #expect(refused == SessionError.connectFailed)
        #expect(refused.message == c.refused)
        let late = HTTPConnection.connectError(ChannelError.connectTimeout(.seconds(1)), host: c.host, port: c.port)
        #expect(late == SessionError.timedOut)
        #expect(late.message == c.timedOut)
    }
}
