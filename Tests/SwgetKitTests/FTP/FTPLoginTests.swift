import Foundation
import Testing
@testable import SwgetKit

@Suite("FTP login choice: URL, settings, .netrc, anonymous")
struct FTPLoginTests {
    static let netrc = try? Netrc(parsing: """
        machine h login alice password fromnetrc account acc
        machine other login bob password bobpw
        default login dflt password dfltpw
        """)

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let url: String
        var user: String?
        var password: String?
        var netrc = true
        let expected: FTPLogin
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(name: "anonymous", url: "ftp://nowhere/f", netrc: false, expected: FTPLogin(user: "anonymous", password: "-wget@")),
        Case(name: "anonymous with a password", url: "ftp://nowhere/f", password: "me@example.org", netrc: false,
             expected: FTPLogin(user: "anonymous", password: "me@example.org")),
        Case(name: "URL user and password, decoded", url: "ftp://a%40b:p%3Aw%20d@h/f",
             expected: FTPLogin(user: "a@b", password: "p:w d")),
        Case(name: "URL user, password from .netrc", url: "ftp://alice@h/f",
             expected: FTPLogin(user: "alice", password: "fromnetrc", account: "acc")),
        Case(name: "URL user unknown to .netrc", url: "ftp://carol@h/f", expected: FTPLogin(user: "carol", password: "")),
        Case(name: "URL wins over settings", url: "ftp://u:p@h/f", user: "x", password: "y", expected: FTPLogin(user: "u", password: "p")),
        Case(name: "settings user and password", url: "ftp://h/f", user: "x", password: "y", expected: FTPLogin(user: "x", password: "y")),
        Case(name: "settings user, .netrc password", url: "ftp://h/f", user: "alice",
             expected: FTPLogin(user: "alice", password: "fromnetrc", account: "acc")),
        Case(name: ".netrc machine", url: "ftp://H/f", expected: FTPLogin(user: "alice", password: "fromnetrc", account: "acc")),
        Case(name: ".netrc default", url: "ftp://elsewhere/f", expected: FTPLogin(user: "dflt", password: "dfltpw")),
        Case(name: "URL anonymous without password", url: "ftp://anonymous@nowhere/f", netrc: false,
             expected: FTPLogin(user: "anonymous", password: "-wget@")),
    ])
    func resolves(_ c: Case) throws {
        var settings = FTPSettings()
        settings.user = c.user
        settings.password = c.password
        #expect(FTPLogin.resolve(url: try #require(URL(string: c.url)), settings: settings, netrc: c.netrc ? Self.netrc : nil) == c.expected)
    }

    @Test func netrcParses() {
        #expect(Self.netrc != nil)
    }
}
