import SwgetKit

/// wget's `-i URL`: URL lists fetched from a server before any download starts, with the
/// command's own session settings (TLS, proxies, credentials, headers), on a session of their
/// own that reports nothing. Each list is text of at most ``maxBytes``.
enum RemoteLists {
    /// The largest list fetched.
    static let maxBytes: Int64 = 16 << 20

    /// Why a list could not be fetched: the error line's cause and the exit status it counts as.
    struct Failure: Error, Sendable {
        let message: String
        let status: ExitStatus
    }

    /// Fetches each request (keyed by the `-i` argument); a nil request is an invalid URL.
    static func fetch(_ lists: [(argument: String, request: Request?)],
                      configuration: SessionConfiguration) async -> [String: Result<String, Failure>] {
        var configuration = configuration
        configuration.maximumBodyBytes = maxBytes
        let session = Session(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        var results: [String: Result<String, Failure>] = [:]
        for (argument, request) in lists {
            guard var request else {
                results[argument] = .failure(Failure(message: "invalid URL for an input list", status: .generic))
                continue
            }
            // A list is fetched whole and as it is now, whatever the downloads ask.
            request.method = "GET"
            request.body = nil
            request.cachePolicy = .useProtocolCachePolicy
            do {
                let (data, response) = try await session.data(for: request)
                guard response.isSuccess else {
                    let failure = Failure(message: "cannot fetch the input list: server answered \(response.statusCode) \(response.reasonPhrase)",
                                          status: response.statusCode == 401 || response.statusCode == 407 ? .authentication : .serverError)
                    results[argument] = .failure(failure)
                    continue
                }
                results[argument] = .success(String(decoding: data, as: UTF8.self))
            } catch {
                results[argument] = .failure(Failure(message: "cannot fetch the input list: \(error.message)", status: ExitStatus(error)))
            }
        }
        return results
    }
}
