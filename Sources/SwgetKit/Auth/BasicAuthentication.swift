#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a Basic credential cannot be sent.
public enum BasicAuthenticationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// RFC 7617 §2: a user-id containing ':' cannot be told apart from the password.
    case colonInUserName
    /// RFC 7617 §2: user-id and password must not contain control characters (CR and LF
    /// would also break the header).
    case controlCharacter
    /// User and password together exceed ``BasicAuthentication/maximumCredentialBytes``.
    case tooLong

    /// One line, for the user.
    public var description: String {
        switch self {
        case .colonInUserName: "the user name contains ':', which Basic authentication cannot carry"
        case .controlCharacter: "the user name or password contains a control character"
        case .tooLong: "the user name and password are too long (at most \(BasicAuthentication.maximumCredentialBytes) bytes)"
        }
    }
}

/// The Basic authentication scheme (RFC 7617): `Authorization: Basic base64(user ":" password)`.
///
/// User and password are always sent as UTF-8 bytes, which is what a challenge's
/// `charset="UTF-8"` asks for (§2.1); without it the RFC leaves the encoding open and UTF-8 is
/// what curl and wget send too. No Unicode normalisation is applied (the text is sent as given).
public enum BasicAuthentication {
    /// The most bytes of `user ":" password` accepted (before Base64): 4 KiB.
    public static let maximumCredentialBytes = 4096

    /// The value of an `Authorization` (or `Proxy-Authorization`) field: `Basic dXNlcjpwYXNz`.
    /// Throws when the user name contains ':' (§2), when either contains a control character, or
    /// when they are longer than ``maximumCredentialBytes``. An empty password is allowed.
    public static func authorization(user: String, password: String) throws(BasicAuthenticationError) -> String {
        guard !user.containsByte(UInt8(ascii: ":")) else { throw .colonInUserName }
        let isControl: (UInt8) -> Bool = { $0 < 0x20 || $0 == 0x7F }
        guard !user.utf8.contains(where: isControl), !password.utf8.contains(where: isControl) else { throw .controlCharacter }
        let bytes = Array(user.utf8) + [UInt8(ascii: ":")] + Array(password.utf8)
        guard bytes.count <= maximumCredentialBytes else { throw .tooLong }
        return "Basic " + Data(bytes).base64EncodedString()
    }

    /// True when a Basic challenge carries `charset="UTF-8"` (RFC 7617 §2.1; the value is matched
    /// without regard to case, the only value the RFC allows). Informational: UTF-8 is sent anyway.
    public static func requestsUTF8(_ challenge: AuthChallenge) -> Bool {
        challenge.parameter("charset")?.caseInsensitiveEquals("UTF-8") ?? false
    }
}
