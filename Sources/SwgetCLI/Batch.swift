#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwgetKit
import Synchronization

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
    /// Where each job's file goes (and the conditions `-N` adds to its request).
    let placement: Placement
    let spider: Bool
    /// wget's FTP globbing: `ftp://host/pub/*.iso` becomes one job per matching file.
    var expandsFTPGlobs = true
    /// `--wait`: time between downloads; nil for none.
    var pacing: Pacing?
    /// Called after each job, before it is counted (`-s`, `--write-out`); returns the job's
    /// status, possibly worse.
    var finished: (@Sendable (Finished) async -> ExitStatus)?

    /// How long to wait between downloads (`--wait`, `--random-wait`).
    struct Pacing: Sendable {
        var wait: Duration
        /// Each wait is `wait` times a random factor from 0.5 to 1.5 (wget's --random-wait).
        var random = false

        /// The next wait.
        func next() -> Duration {
            random ? wait * Double.random(in: 0.5...1.5) : wait
        }

        /// When the next job starts, given when the previous one started: with one download at
        /// a time, `wait` after now (the previous one just ended); with several, `wait` after the
        /// previous start, and never before now.
        static func start(after previous: ContinuousClock.Instant, now: ContinuousClock.Instant, wait: Duration,
                          parallel: Int) -> ContinuousClock.Instant {
            parallel <= 1 ? now + wait : max(now, previous + wait)
        }
    }

    /// One job's end, for `finished`.
    struct Finished: Sendable {
        /// The job's position in the list, from 0.
        let index: Int
        let job: Job
        /// The task that ran, nil when none did (an invalid URL).
        let task: SessionTask?
        let status: ExitStatus
        /// The error line's cause, when the job failed.
        let message: String?
    }

    struct Tally: Sendable {
        var worst = ExitStatus.success
        var succeeded = 0
        var failed = 0
        var skipped = 0
        var bytes: Int64 = 0

        /// Adds a lane's (or a worker's) counts.
        mutating func add(_ lane: Tally) {
            worst = max(worst, lane.worst)
            succeeded += lane.succeeded
            failed += lane.failed
            skipped += lane.skipped
            bytes += lane.bytes
        }
    }

    /// What one job ended with.
    private struct Outcome: Sendable {
        var status: ExitStatus
        var skipped = false
        var bytes: Int64 = 0
        var task: SessionTask?
        var message: String?
        /// Interrupted while waiting its turn: not counted.
        var notStarted = false
    }

    func run(_ jobs: [Job], parallel: Int) async -> Tally {
        var tally = Tally()
        let jobs = expandsFTPGlobs ? await expandGlobs(jobs, tally: &tally) : jobs
        // Each of the session's event loops runs a lane: its share of the parallel jobs, each
        // taking the next URL when one of its own ends. A job, its connections and the lane that
        // waits for it share one thread, so starting a download and hearing that it ended cross
        // no thread, and the loops never wake each other.
        let executors = session.taskExecutors.prefix(max(1, parallel))
        let queue = JobQueue(jobs: jobs, pacing: pacing, parallel: parallel)
        await withTaskGroup(of: Tally.self) { lanes in
            for (lane, executor) in executors.enumerated() {
                let width = parallel / executors.count + (lane < parallel % executors.count ? 1 : 0)
                lanes.addTask(executorPreference: executor) { await runLane(width: width, queue: queue) }
            }
            for await lane in lanes { tally.add(lane) }
        }
        return tally
    }

    /// Up to `width` jobs at once from `queue`, until it is empty or the run is interrupted:
    /// `width` workers, each taking the next job when its own ends. A worker per slot rather
    /// than a child task per job: making and ending a task cost about as much as the HTTP work
    /// of a small file.
    private func runLane(width: Int, queue: JobQueue) async -> Tally {
        await withTaskGroup(of: Tally.self) { workers in
            for _ in 0..<max(1, width) {
                workers.addTask { await runWorker(queue: queue) }
            }
            var tally = Tally()
            for await worker in workers { tally.add(worker) }
            return tally
        }
    }

    /// Runs jobs from `queue` one after another.
    private func runWorker(queue: JobQueue) async -> Tally {
        var tally = Tally()
        while interruption.signal == nil, let (index, job, start) = queue.next() {
            let outcome = await runJob(job, index: index, startingAt: start)
            if outcome.notStarted { continue }
            tally.worst = max(tally.worst, outcome.status)
            if outcome.skipped {
                tally.skipped += 1
            } else if outcome.status == .success {
                tally.succeeded += 1
                tally.bytes += outcome.bytes
            } else {
                tally.failed += 1
            }
        }
        return tally
    }

    /// The jobs not started yet, shared by the lanes, with the start time `--wait` gives each.
    private final class JobQueue: Sendable {
        private struct State {
            var pending: EnumeratedSequence<[Job]>.Iterator
            var lastStart: ContinuousClock.Instant?
        }

        private let state: Mutex<State>
        private let pacing: Pacing?
        private let parallel: Int

        init(jobs: [Job], pacing: Pacing?, parallel: Int) {
            state = Mutex(State(pending: jobs.enumerated().makeIterator()))
            self.pacing = pacing
            self.parallel = parallel
        }

        /// The next job, its position in the list and when it may start.
        func next() -> (Int, Job, ContinuousClock.Instant)? {
            state.withLock { state in
                guard let (index, job) = state.pending.next() else { return nil }
                let now = ContinuousClock.now
                var start = now
                if let pacing, let lastStart = state.lastStart {
                    start = Pacing.start(after: lastStart, now: now, wait: pacing.next(), parallel: parallel)
                }
                state.lastStart = start
                return (index, job, start)
            }
        }
    }

    /// One job, from its start time to its reported outcome. A function of its own rather than
    /// the task group's closure: Swift 6.3.1's optimizer (release builds) returned a corrupt
    /// `status` from a closure that mutated its `var outcome` across the `await` of `finished`,
    /// so every successful download exited with a random code (bench/run caught it).
    private func runJob(_ job: Job, index: Int, startingAt start: ContinuousClock.Instant) async -> Outcome {
        guard await waitUntil(start) else { return Outcome(status: .success, notStarted: true) }
        let outcome = await spider ? check(job) : download(job)
        guard let finished else { return outcome }
        var reported = outcome
        reported.status = await finished(Finished(index: index, job: job, task: outcome.task,
                                                  status: outcome.status, message: outcome.message))
        return reported
    }

    /// Sleeps until `instant`, waking early when the run is interrupted; false then.
    private func waitUntil(_ instant: ContinuousClock.Instant) async -> Bool {
        while interruption.signal == nil {
            let left = instant - .now
            guard left > .zero else { return true }
            try? await Task.sleep(for: min(left, .milliseconds(100)))
        }
        return false
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
            return Outcome(status: .generic, message: "invalid URL")
        }
        let (placed, destination) = placement.place(request)
        let task = session.downloadTask(with: placed, destination: destination)
        let error = await task.outcome()
        let url = request.url.absoluteString
        if let skipped = task.skippedExistingFile {
            reporter.reportSkipped(skipped.path(percentEncoded: false))
            return Outcome(status: .success, skipped: true, task: task)
        }
        if error == nil, task.isNotModified {
            reporter.reportNotModified(url: url, reason: Self.notRetrievedReason(placed.cachePolicy))
            return Outcome(status: .success, skipped: true, task: task)
        }
        guard let error else { return Outcome(status: .success, bytes: task.countOfBytesReceived, task: task) }
        if let signal = interruption.signal {
            var message = "interrupted"
            if let part = task.partialFile, let kept = error.resumeData?.bytesOnDisk {
                message += "; \(Units.bytes(kept)) kept in '\(Terminal.relativePath(part.path(percentEncoded: false)))'. Run the same command again to continue."
            }
            reporter.reportFailure(url: url, message: message, exitCode: 128 + signal)
            return Outcome(status: .generic, task: task, message: message)
        }
        if let refusal = reporter.takeRefusal(for: task) {
            reporter.reportFailure(url: url, message: refusal, exitCode: ExitStatus.generic.rawValue)
            return Outcome(status: .generic, task: task, message: refusal)
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
        return Outcome(status: status, task: task, message: message)
    }

    /// `--spider`: asks for the head only (HEAD) and reports whether the URL answers with success.
    private func check(_ job: Job) async -> Outcome {
        guard var request = job.request else {
            reporter.reportFailure(url: job.label, message: "invalid URL", exitCode: ExitStatus.generic.rawValue)
            return Outcome(status: .generic, message: "invalid URL")
        }
        request.method = "HEAD"
        let task = session.dataTask(with: request)
        let error = await task.outcome()
        let url = request.url.absoluteString
        if let error {
            let refusal = reporter.takeRefusal(for: task)
            let status = refusal == nil ? ExitStatus(error) : .generic
            let message = refusal ?? error.message
            reporter.reportFailure(url: url, message: message, exitCode: status.rawValue)
            return Outcome(status: status, task: task, message: message)
        }
        if let response = task.response, response.statusCode >= 300 {
            // A 401 or 407 left unanswered is wget's "Authorization failed" (exit 6).
            let status: ExitStatus = response.statusCode == 401 || response.statusCode == 407 ? .authentication : .serverError
            let message = "server answered \(response.statusCode) \(response.reasonPhrase)"
            reporter.reportFailure(url: url, message: message, exitCode: status.rawValue)
            return Outcome(status: status, task: task, message: message)
        }
        reporter.reportExists(url: url, response: task.response)
        return Outcome(status: .success, task: task)
    }
}

extension Batch {
    /// Why a download whose condition failed was not retrieved, as the line says it.
    static func notRetrievedReason(_ policy: CachePolicy) -> String {
        switch policy {
        case .reloadIfUnmodifiedSince(let date):
            return "Server file modified after \(CookieDate.format(date))"
        case .reloadRevalidatingCacheData(let validator) where validator.entityTag != nil && validator.lastModified == nil:
            return "Server file unchanged (same ETag)"
        case .reloadRevalidatingCacheData(let validator) where validator.length == nil:
            guard let date = validator.lastModified else { return "Server file no newer than local file" }
            return "Server file not modified since \(CookieDate.format(date))"
        default:
            return "Server file no newer than local file"
        }
    }
}
