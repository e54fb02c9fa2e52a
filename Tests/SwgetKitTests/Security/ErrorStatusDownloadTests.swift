import Foundation
import Testing
import SwgetKit
import SwgetTestSupport

/// Issue 10 §7: a download task answered with an error status publishes nothing by default and
/// fails with an error whose category is `.httpStatus` and which carries the response; keeping
/// error bodies is an explicit opt-in (`keepsErrorResponses`, the CLI's `--content-on-error`).
@Suite("Security: an error answer never lands as a file by default")
struct ErrorStatusDownloadTests {
    static let page = Array("<html>Not Found</html>".utf8)

    @Test(arguments: [404, 410, 500, 503])
    func fileDestinationKeepsTheExistingFile(_ status: Int) async throws {
        let dir = try makeTemporaryDirectory()
        let path = dir + "/report.pdf"
        let mine = Array("the user's own report".utf8)
        try Data(mine).write(to: URL(fileURLWithPath: path))
        var configuration = SessionConfiguration.default
        configuration.retryPolicy = .none
        try await withServer({ _ in .status(status, body: Self.page, headers: [("Content-Type", "text/html")]) }) { server in
            do throws(SessionError) {
                _ = try await Session(configuration: configuration).download(request(server.baseURL + "/missing"), to: .file(path))
                Issue.record("a \(status) answer reported success")
            } catch {
                #expect(error.category == .httpStatus)
                #expect(error.response?.statusCode == status)
                #expect(error.message.contains("\(status)"))
            }
        }
        #expect(contents(path) == mine)
        #expect(files(in: dir) == ["report.pdf"])
    }

    @Test func directoryDestinationSavesNothing() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in .status(404, body: Self.page) }) { server in
            let task = Session().downloadTask(with: request(server.baseURL + "/missing.txt"), destination: .directory(dir))
            let error = try #require(await task.outcome())
            #expect(error.category == .httpStatus)
            #expect(error.response?.statusCode == 404)
            #expect(task.location == nil)
        }
        #expect(files(in: dir) == [])
    }

    @Test func keepingErrorResponsesIsAnOptIn() async throws {
        let dir = try makeTemporaryDirectory()
        var destination = DownloadDestination.directory(dir)
        destination.keepsErrorResponses = true
        try await withServer({ _ in .status(404, body: Self.page) }) { server in
            let task = Session().downloadTask(with: request(server.baseURL + "/missing.txt"), destination: destination)
            let error = try #require(await task.outcome())
            #expect(error.category == .httpStatus)
            #expect(error.response?.statusCode == 404)
            #expect(task.location?.path == dir + "/missing.txt")
        }
        #expect(files(in: dir) == ["missing.txt"])
        #expect(contents(dir + "/missing.txt") == Self.page)
    }

    /// The control: a success still publishes (the tests above can fail).
    @Test func aSuccessIsPublished() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in .ok(Self.page) }) { server in
            let (url, response) = try await Session().download(request(server.baseURL + "/found.txt"), to: .file(dir + "/out"))
            #expect(response.statusCode == 200)
            #expect(url.path == dir + "/out")
        }
        #expect(contents(dir + "/out") == Self.page)
    }
}
