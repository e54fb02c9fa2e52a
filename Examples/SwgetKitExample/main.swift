// SwgetKit used as an app would, exactly as the README shows: a download with progress, cancel
// with resume data that is saved and continued by another session, a body fetched into memory,
// one self-signed host trusted by the delegate, and an error status and a refused connection
// handled. CI builds it and runs it against the test server (Tests/swgetTests/ExampleProgramTests.swift).
//
//     SwgetKitExample HTTP_BASE HTTPS_BASE DIRECTORY
//
// HTTP_BASE serves /big.bin (slowly), /hello.txt and nothing at /missing; HTTPS_BASE is a host
// with a self-signed certificate serving /hello.txt.

import Foundation
import SwgetKit

// MARK: a delegate: progress events, and trust for one self-signed host

/// Prints progress now and then, and trusts exactly one host whose certificate is self-signed.
final class ExampleDelegate: SessionDelegate {
    let trustedHost: String?

    init(trustedHost: String? = nil) {
        self.trustedHost = trustedHost
    }

    func task(_ task: SessionTask, didEmit event: TaskEvent) async {
        switch event {
        case .response(let response):
            print("response \(response.statusCode) for \(response.url.lastPathComponent)")
        case .resumed(let offset, let total):
            print("resumed at \(offset) of \(total.map(String.init) ?? "?") bytes")
        case .finishedDownloading(let file):
            print("finished: \(file.lastPathComponent)")
        case .willRetry(let delay, let error, let attempt):
            print("attempt \(attempt) in \(delay) after: \(error)")
        default:
            break
        }
    }

    func task(_ task: SessionTask, didReceive challenge: ServerTrustChallenge) async -> TrustDisposition {
        challenge.host == trustedHost ? .accept : .performDefaultHandling
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let httpBase = URL(string: arguments[1]), let httpsBase = URL(string: arguments[2]) else {
    print("usage: SwgetKitExample HTTP_BASE HTTPS_BASE DIRECTORY")
    exit(2)
}
let directory = URL(filePath: arguments[3], directoryHint: .isDirectory)

// MARK: 1. a download with progress, read from the task's events

let session = Session(configuration: .default, delegate: ExampleDelegate())
let task = session.downloadTask(with: Request(url: httpBase.appending(path: "big.bin")), destination: .directory(directory))
var printedHalf = false
let events = task.events                     // subscribe before resume() to see every event
task.resume()
var saved: [UInt8] = []
for await event in events {
    guard case .wroteData(_, let written, let expected?) = event else { continue }
    if !printedHalf && written * 2 >= expected {
        printedHalf = true
        print("half of big.bin is here")
        // MARK: 2. cancel with resume data, and keep it somewhere
        if let data = await task.cancelProducingResumeData() {
            saved = data.serialized()
            print("cancelled with \(data.bytesOnDisk) bytes kept")
        }
    }
}

// ... later, perhaps in another process: continue where it stopped.
if let data = ResumeData(serialized: saved) {
    let resumed = Session(configuration: .default, delegate: ExampleDelegate()).downloadTask(withResumeData: data)
    do {
        try await resumed.completion()
        print("big.bin complete: \(resumed.location?.lastPathComponent ?? "?")")
    } catch {
        print("resume failed: \(error)")
    }
}

// MARK: 3. a small body into memory

do {
    let (body, response) = try await session.data(for: Request(url: httpBase.appending(path: "hello.txt")))
    print("hello.txt: \(response.statusCode), \(String(decoding: body, as: UTF8.self))")
} catch {
    print("hello.txt failed: \(error)")
}

// MARK: 4. one self-signed host, trusted by the delegate

let trusting = Session(configuration: .ephemeral, delegate: ExampleDelegate(trustedHost: httpsBase.host))
do {
    let (body, _) = try await trusting.data(for: Request(url: httpsBase.appending(path: "hello.txt")))
    print("self-signed host: \(String(decoding: body, as: UTF8.self))")
} catch {
    print("self-signed host failed: \(error)")
}
do {
    _ = try await Session(configuration: .ephemeral).data(for: Request(url: httpsBase.appending(path: "hello.txt")))
    print("untrusted host accepted?!")
} catch {
    print("without the delegate: \(error.category)")
}

// MARK: 5. an error status and a refused connection

do {
    _ = try await session.download(Request(url: httpBase.appending(path: "missing")), to: .directory(directory))
} catch where error.category == .httpStatus {
    print("missing: the server answered \(error.response?.statusCode ?? 0); nothing was saved")
} catch {
    print("missing: \(error)")
}
if let refused = Request(string: "http://127.0.0.1:1/") {
    do {
        _ = try await session.data(for: refused)
    } catch {
        print("port 1: \(error.category), errno \(error.underlyingErrno ?? 0)")
    }
}
session.finishTasksAndInvalidate()
