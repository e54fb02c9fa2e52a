import Foundation
import Synchronization
import Testing
import SwgetKit
import SwgetTestSupport

@Suite("Session: redirects, keep-alive, data tasks")
struct SessionTests {
    @Test func followsARelativeRedirectChain() async throws {
        let delegate = RecordingDelegate()
        try await withServer({ request in
            switch request.path {
            case "/a": .redirect(301, to: "b")
            case "/b": .redirect(302, to: "/dir/c")
            case "/dir/c": .redirect(307, to: "../final.txt")
            default: .text("done: \(request.path)")
            }
        }) { server in
            let (data, response) = try await Session(delegate: delegate).data(for: request(server.baseURL + "/a"))
            #expect(String(decoding: data, as: UTF8.self) == "done: /final.txt")
            #expect(response.url.path == "/final.txt")
            #expect(response.originalURL.path == "/a")
            // Small redirect bodies are drained, so one connection carries the whole chain.
            #expect(server.connectionCount == 1)
        }
        #expect(delegate.log == ["redirect 301 /b", "redirect 302 /dir/c", "redirect 307 /final.txt", "response 200", "complete ok"])
    }

    @Test func redirectLoopEndsWithAClearError() async throws {
        try await withServer({ request in request.path == "/x" ? .redirect(302, to: "/y") : .redirect(302, to: "/x") }) { server in
            await #expect(throws: SessionError.redirectLoop) {
                _ = try await Session().data(for: request(server.baseURL + "/x"))
            }
        }
    }

    @Test func redirectLimit() async throws {
        try await withServer({ request in
            let n = Int(request.path.dropFirst()) ?? 0
            return .redirect(302, to: "/\(n + 1)")
        }) { server in
            var configuration = SessionConfiguration.default
            configuration.maxRedirects = 3
            let session = Session(configuration: configuration)
            do throws(SessionError) {
                _ = try await session.data(for: request(server.baseURL + "/0"))
                Issue.record("expected too many redirects")
            } catch {
                #expect(error == SessionError.tooManyRedirects)
                #expect(error.category == .protocol)
            }
            #expect(server.requests.count == 4)
        }
    }

    @Test func redirectToANonNetworkSchemeIsRefused() async throws {
        try await withServer({ _ in .redirect(302, to: "file:///etc/passwd") }) { server in
            await #expect(throws: SessionError.badRedirect) {
                _ = try await Session().data(for: request(server.baseURL + "/x"))
            }
        }
    }

    @Test func refusedRedirectBecomesTheResponse() async throws {
        let delegate = RecordingDelegate(followRedirects: false)
        try await withServer({ _ in .redirect(302, to: "/elsewhere") }) { server in
            let (_, response) = try await Session(delegate: delegate).data(for: request(server.baseURL + "/x"))
            #expect(response.statusCode == 302)
            #expect(server.requests.count == 1)
        }
        #expect(delegate.log == ["redirect 302 /elsewhere", "response 302", "complete ok"])
    }

    @Test func postBecomesGetAfter303() async throws {
        try await withServer({ request in
            request.path == "/form" ? .redirect(303, to: "/result") : .text("\(request.method) \(request.body.count)")
        }) { server in
            let post = Request(url: request(server.baseURL + "/form").url, method: "POST", body: Array("a=1".utf8))
            let (data, _) = try await Session().data(for: post)
            #expect(String(decoding: data, as: UTF8.self) == "GET 0")
            #expect(server.requests.first?.body == Array("a=1".utf8))
        }
    }

    @Test func keepAliveConnectionsAreReusedAcrossTasks() async throws {
        try await withServer({ _ in .text("hi") }) { server in
            let session = Session()
            for _ in 0..<5 { _ = try await session.data(for: request(server.baseURL + "/k")) }
            #expect(server.connectionCount == 1)
            #expect(Set(server.requests.map(\.connectionID)).count == 1)
        }
    }

    @Test func connectionCloseIsHonoured() async throws {
        try await withServer({ _ in .text("bye").closingConnection() }) { server in
            let session = Session()
            for _ in 0..<3 { _ = try await session.data(for: request(server.baseURL + "/k")) }
            #expect(server.connectionCount == 3)
        }
    }

    @Test func perHostConnectionLimit() async throws {
        try await withServer({ _ in .ok(bytes(20_000)).trickled(bytesPerWrite: 5_000, every: .milliseconds(10)) }) { server in
            var configuration = SessionConfiguration.default
            configuration.maxConnectionsPerHost = 2
            let session = Session(configuration: configuration)
            try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<6 {
                    group.addTask { try await session.data(for: request(server.baseURL + "/\(i)")).0.count }
                }
                for try await count in group { #expect(count == 20_000) }
            }
            #expect(server.connectionCount <= 2)
            #expect(server.requests.count == 6)
        }
    }

    @Test func defaultAndCustomHeadersAreSent() async throws {
        try await withServer({ _ in .text("ok") }) { server in
            var r = request(server.baseURL + "/h?x=1&y=%20")
            r.headers.add("X-Test", "yes")
            r.headers.add("Host", "ignored.example")
            _ = try await Session().data(for: r)
            let sent = try #require(server.requests.first)
            #expect(sent.uri == "/h?x=1&y=%20")
            #expect(sent.header("User-Agent") == "swget/\(SwgetVersion.string)")
            #expect(sent.header("X-Test") == "yes")
            #expect(sent.header("Host") == "127.0.0.1:\(server.port)")
        }
    }

    @Test func headAnd204HaveNoBody() async throws {
        try await withServer({ request in request.path == "/204" ? .status(204) : .ok(bytes(1000)) }) { server in
            let session = Session()
            let head = Request(url: request(server.baseURL + "/x").url, method: "HEAD")
            let (data, response) = try await session.data(for: head)
            #expect(data.isEmpty)
            #expect(response.expectedContentLength == 0)
            let (none, noContent) = try await session.data(for: request(server.baseURL + "/204"))
            #expect(none.isEmpty && noContent.statusCode == 204)
            // Both left the connection clean for the next request.
            _ = try await session.data(for: request(server.baseURL + "/x"))
            #expect(server.connectionCount == 1)
        }
    }

    @Test func dataTaskDeliversPiecesInOrder() async throws {
        let body = bytes(3_000_000)
        let delegate = RecordingDelegate()
        try await withServer({ _ in .ok(body).chunked(65_000) }) { server in
            let task = Session(delegate: delegate).dataTask(with: request(server.baseURL + "/stream"))
            #expect(await task.outcome() == nil)
            #expect(task.countOfBytesReceived == 3_000_000)
        }
        #expect(fingerprint(delegate.data.withLock { $0 }) == fingerprint(body))
    }

    @Test func staleKeepAliveConnectionIsReplaced() async throws {
        // Each connection answers one request with keep-alive, then closes without a word when
        // the next request comes (a server's keep-alive timeout racing our reuse): the second
        // request is sent on the pooled connection, fails before any answer, and is sent again
        // on a fresh one — once, transparently, without counting as a retry.
        let served = Mutex<Set<Int>>([])
        try await withServer({ request in
            let first = served.withLock { $0.insert(request.connectionID).inserted }
            return first ? TestResponse.text("once") : TestResponse.rawBytes([])
        }) { server in
            let session = Session()
            for _ in 0..<3 {
                let (data, _) = try await session.data(for: request(server.baseURL + "/x"))
                #expect(Array(data) == Array("once".utf8))
            }
            // Requests 2 and 3 each met a dead pooled connection first.
            #expect(server.requests.count == 5)
            #expect(server.connectionCount == 3)
        }
    }

    @Test(arguments: ["gopher://example.org/x", "ldap://example.org/x", "mailto:a@b"])
    func unsupportedSchemes(_ url: String) async throws {
        await #expect(throws: SessionError.unsupportedURL) { _ = try await Session().data(for: request(url)) }
    }

    @Test func connectionRefusedIsANetworkError() async throws {
        do throws(SessionError) {
            _ = try await Session().data(for: request("http://127.0.0.1:9/x"))
            Issue.record("expected a failure")
        } catch {
            #expect(error == SessionError.connectFailed)
            #expect(error.category == .network)
            #expect(error.message.contains("Connection refused"))
        }
    }

    @Test func invalidatedSessionRefusesTasks() async throws {
        let session = Session()
        session.invalidateAndCancel()
        await #expect(throws: SessionError.sessionInvalidated) { _ = try await session.data(for: request("http://127.0.0.1:9/")) }
    }
}

@Suite("Session invalidation and concurrent downloads")
struct SessionLifecycleTests {
    @Test func finishTasksAndInvalidateLetsRunningTasksEnd() async throws {
        try await withServer({ _ in .ok(bytes(50_000)).trickled(bytesPerWrite: 10_000, every: .milliseconds(20)) }) { server in
            let session = Session()
            let running = session.dataTask(with: request(server.baseURL + "/a"))
            running.resume()
            session.finishTasksAndInvalidate()
            #expect(await running.outcome() == nil)
            #expect(running.countOfBytesReceived == 50_000)
            let late = session.dataTask(with: request(server.baseURL + "/b"))
            #expect(await late.outcome() == SessionError.sessionInvalidated)
        }
    }

    @Test func invalidateAndCancelStopsRunningTasks() async throws {
        // The body stops at 10 kB until the cancel: however long a loaded machine keeps the test
        // from looking, the download cannot end first (it did on CI with a body that only crawled).
        let gate = BodyGate()
        gate.open(to: 10_000)
        try await withServer({ _ in .ok(bytes(1_000_000)).trickled(bytesPerWrite: 1_000, every: .milliseconds(1), gate: gate) }) { server in
            let session = Session()
            let task = session.dataTask(with: request(server.baseURL + "/a"))
            task.resume()
            while task.countOfBytesReceived == 0 { try await Task.sleep(for: .milliseconds(10)) }
            session.invalidateAndCancel()
            #expect(await task.outcome() == SessionError.cancelled)
            gate.openFully()
        }
    }

    @Test func concurrentDownloadsOfOneNameNeverCollide() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in .text("body of \(request.uri)").trickled(bytesPerWrite: 4, every: .milliseconds(5)) }) { server in
            let session = Session()
            let tasks = (0..<6).map { session.downloadTask(with: request(server.baseURL + "/same.txt?n=\($0)"), destination: .directory(dir)) }
            for task in tasks { task.resume() }
            for task in tasks { #expect(await task.outcome() == nil) }
            #expect(Set(tasks.compactMap(\.location)).count == 6)
        }
        #expect(files(in: dir) == ["same-1.txt", "same-2.txt", "same-3.txt", "same-4.txt", "same-5.txt", "same.txt"])
    }
}
