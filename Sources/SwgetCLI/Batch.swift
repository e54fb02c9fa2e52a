import SwgetKit

/// One URL to fetch, as the command line or an input file gave it.
struct Job: Sendable {
    /// The text as given (named in error lines).
    let label: String
    /// nil when the text is not a usable URL.
    let request: Request?
}

/// Runs the jobs of one invocation on one session, up to `parallel` at once (1 is wget's
/// serial behaviour), and keeps the tally for the final summary. One failing URL never stops
/// the others; an interruption stops starting new ones.
struct Batch: Sendable {
    let session: Session
    let reporter: Reporter
    let interruption: Interruption
    let destination: DownloadDestination
    let spider: Bool
    /// wget's FTP globbing: `ftp://host/pub/*.iso` becomes one job per matching file.
    var expandsFTPGlobs = true

    struct Tally: Sendable {
        var worst = ExitStatus.success
        var succeeded = 0
        var failed = 0
        var skipped = 0
        var bytes: Int64 = 0
    }

    /// What one job ended with.
    private struct Outcome: Sendable {
        var status: ExitStatus
        var skipped = false
        var bytes: Int64 = 0
    }

    func run(_ jobs: [Job], parallel: Int) async -> Tally {
        var tally = Tally()
        let jobs = expandsFTPGlobs ? await expandGlobs(jobs, tally: &tally) : jobs
        var pending = jobs.makeIterator()
        await withTaskGroup(of: Outcome.self) { group in
            func startNext() -> Bool {
                guard interruption.signal == nil, let job = pending.next() else { return false }
                group.addTask { await spider ? check(job) : download(job) }
                return true
            }
            for _ in 0..<max(1, parallel) where !startNext() { break }
            for await outcome in group {
                tally.worst = max(tally.worst, outcome.status)
                if outcome.skipped {
                    tally.skipped += 1
                } else if outcome.status == .success {
                    tally.succeeded += 1
                    tally.bytes += outcome.bytes
                } else {
                    tally.failed += 1
                }
                _ = startNext()
            }
        }
        return tally
    }

    /// Replaces each FTP URL with a wildcard by its matching files (listing the directory), in
    /// name order; a listing that fails or matches nothing is reported as the job's failure.
    private func expandGlobs(_ jobs: [Job], tally: inout Tally) async -> [Job] {
        var expanded: [Job] = []
        for job in jobs {
            guard interruption.signal == nil else { break }
            guard let request = job.request, FTPProtocolHandler.hasGlob(request.url) else {
                expanded.append(job)
                continue
            }
            do {
                for match in try await session.expandFTPGlob(request) {
                    expanded.append(Job(label: match.url.absoluteString, request: match))
                }
            } catch {
                let status = ExitStatus(error)
                reporter.reportFailure(url: job.label, message: error.message, exitCode: status.rawValue)
                tally.worst = max(tally.worst, status)
                tally.failed += 1
            }
        }
        return expanded
    }

    /// Downloads one URL; reports its failure.
    private func download(_ job: Job) async -> Outcome {
        guard let request = job.request else {
            reporter.reportFailure(url: job.label, message: "invalid URL", exitCode: ExitStatus.generic.rawValue)
            return Outcome(status: .generic)
        }
        let task = session.downloadTask(with: request, destination: destination)
        let error = await task.outcome()
        let url = request.url.absoluteString
        if let skipped = task.skippedExistingFile {
            reporter.reportSkipped(skipped.path(percentEncoded: false))
            return Outcome(status: .success, skipped: true)
        }
        guard let error else { return Outcome(status: .success, bytes: task.countOfBytesReceived) }
        if let signal = interruption.signal {
            var message = "interrupted"
            if let part = task.partialFile, let kept = error.resumeData?.bytesOnDisk {
                message += "; \(Units.bytes(kept)) kept in '\(Terminal.relativePath(part.path(percentEncoded: false)))'. Run the same command again to continue."
            }
            reporter.reportFailure(url: url, message: message, exitCode: 128 + signal)
            return Outcome(status: .generic)
        }
        if let refusal = reporter.refusal(for: task) {
            reporter.reportFailure(url: url, message: refusal, exitCode: ExitStatus.generic.rawValue)
            return Outcome(status: .generic)
        }
        var message = error.message
        if error.category == .authentication && (message.hasPrefix("authentication required") || message.hasPrefix("the server asks")) {
            message += " (use --user or ~/.netrc)"
        }
        if let part = task.partialFile {
            message += " (partial data kept in '\(Terminal.relativePath(part.path(percentEncoded: false)))'; run the same command again to continue)"
        }
        let status = ExitStatus(error)
        reporter.reportFailure(url: url, message: message, exitCode: status.rawValue)
        return Outcome(status: status)
    }

    /// `--spider`: asks for the head only (HEAD) and reports whether the URL answers with success.
    private func check(_ job: Job) async -> Outcome {
        guard var request = job.request else {
            reporter.reportFailure(url: job.label, message: "invalid URL", exitCode: ExitStatus.generic.rawValue)
            return Outcome(status: .generic)
        }
        request.method = "HEAD"
        let task = session.dataTask(with: request)
        let error = await task.outcome()
        let url = request.url.absoluteString
        if let error {
            let status = reporter.refusal(for: task) == nil ? ExitStatus(error) : .generic
            reporter.reportFailure(url: url, message: reporter.refusal(for: task) ?? error.message, exitCode: status.rawValue)
            return Outcome(status: status)
        }
        if let response = task.response, response.statusCode >= 300 {
            reporter.reportFailure(url: url, message: "server answered \(response.statusCode) \(response.reasonPhrase)",
                                   exitCode: ExitStatus.serverError.rawValue)
            return Outcome(status: .serverError)
        }
        reporter.reportExists(url: url, response: task.response)
        return Outcome(status: .success)
    }
}

/// The lines of an `-i` input file that hold URLs: one per line, surrounding blanks trimmed,
/// blank lines and `#` comments skipped. Pure, for tests.
enum InputList {
    static func entries(_ text: String) -> [(line: Int, text: String)] {
        var result: [(line: Int, text: String)] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = Substring(raw.hasSuffix("\r") ? raw.dropLast() : raw).trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") { continue }
            result.append((index + 1, line))
        }
        return result
    }
}
