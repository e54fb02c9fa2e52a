import SwgetKit

/// WWW-Authenticate / Proxy-Authenticate challenges and Digest. Properties: the parser holds its
/// limits; every Digest challenge it accepts answers deterministically for a fixed cnonce and
/// nonce count, and the answer is one header line (no CR, LF or NUL).
enum AuthProperty {
    static func check(_ input: [UInt8]) throws(PropertyFailure) {
        let fields = text(input).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let challenges = AuthChallenge.parse(fields: fields)
        try require(challenges.count <= AuthChallenge.Limits.challenges * AuthChallenge.Limits.fields, "too many challenges")
        for challenge in challenges {
            try require(challenge.parameters.count <= AuthChallenge.Limits.parametersPerChallenge, "too many parameters")
            guard challenge.hasScheme("Digest"), let digest = try? DigestChallenge(challenge) else { continue }
            for body in [DigestEntityBody.empty, .bytes(Array("x".utf8))] {
                let answers = (0..<2).map { _ in
                    try? DigestAuthentication.authorization(challenge: digest, user: "Mufasa", password: "Circle of Life",
                                                            method: "GET", uri: "/dir/index.html", nonceCount: 1,
                                                            cnonce: "0a4f113b", body: body)
                }
                try require(answers[0] == answers[1], "Digest answer not deterministic")
                if let answer = answers[0] {
                    try require(!answer.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }, "CR/LF/NUL in Authorization")
                }
            }
        }
    }
}
