// WWW-Authenticate / Proxy-Authenticate challenges and Digest. Properties: the parser holds its
// limits; every Digest challenge it accepts answers deterministically for a fixed cnonce and
// nonce count, and the answer is one header line (no CR, LF or NUL).
import FuzzSupport
import SwgetKit

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    let fields = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let challenges = AuthChallenge.parse(fields: fields)
    require(challenges.count <= AuthChallenge.Limits.challenges * AuthChallenge.Limits.fields, "too many challenges")
    for challenge in challenges {
        require(challenge.parameters.count <= AuthChallenge.Limits.parametersPerChallenge, "too many parameters")
        guard challenge.hasScheme("Digest"), let digest = try? DigestChallenge(challenge) else { continue }
        for body in [DigestEntityBody.empty, .bytes(Array("x".utf8))] {
            let answers = (0..<2).map { _ in
                try? DigestAuthentication.authorization(challenge: digest, user: "Mufasa", password: "Circle of Life",
                                                        method: "GET", uri: "/dir/index.html", nonceCount: 1,
                                                        cnonce: "0a4f113b", body: body)
            }
            require(answers[0] == answers[1], "Digest answer not deterministic")
            if let answer = answers[0] {
                require(!answer.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }, "CR/LF/NUL in Authorization")
            }
        }
    }
    return 0
}

runFuzzer(fuzzOne)
