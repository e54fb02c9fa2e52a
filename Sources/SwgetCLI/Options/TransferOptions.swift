import ArgumentParser
import SwgetKit

/// Retries, timeouts and speed.
struct TransferOptions: ParsableArguments {
    @Option(name: [.customShort("t"), .customLong("tries")],
            help: ArgumentHelp("Attempts per URL on transient failures (default 20, 0 = unlimited).", valueName: "N"))
    var tries: Int = 20

    @Option(name: [.customLong("waitretry"), .customLong("retry-wait")],
            help: ArgumentHelp("Longest wait between attempts in seconds (default 10).", valueName: "SECONDS"))
    var waitRetry: Double = 10

    @Flag(name: .customLong("retry-connrefused"), help: "Accepted for wget scripts: refused connections are always retried.")
    var retryConnRefused = false

    @Option(name: [.customShort("T"), .customLong("timeout")],
            help: ArgumentHelp("Connect and read timeout in seconds.", valueName: "SECONDS"))
    var timeout: Double?

    @Option(name: .customLong("connect-timeout"), help: ArgumentHelp("Connect timeout in seconds (default 30).", valueName: "SECONDS"))
    var connectTimeout: Double?

    @Option(name: .customLong("read-timeout"),
            help: ArgumentHelp("Seconds without a byte before giving up (default 60).", valueName: "SECONDS"))
    var readTimeout: Double?

    @Option(name: [.customLong("split"), .customLong("max-connection-per-server")],
            help: ArgumentHelp("Fetch each file over up to N connections in segments, when the server allows ranges (default 1).",
                               valueName: "N"))
    var split: Int = 1

    @Option(name: .customLong("min-split-size"),
            help: ArgumentHelp("Never make segments smaller than SIZE (default 1M).", valueName: "SIZE"))
    var minSplitSize: String?

    @Option(name: .customLong("limit-rate"),
            help: ArgumentHelp("Receive at most RATE bytes per second over all transfers together (500k, 2M).", valueName: "RATE"))
    var limitRate: String?

    @Option(name: .customLong("max-filesize"),
            help: ArgumentHelp("Refuse files larger than SIZE after decoding (bytes, or with k, M, G: 500k, 2G); exit 1.",
                               valueName: "SIZE"))
    var maxFilesize: String?
}

extension TransferOptions {
    func validate() throws {
        if tries < 0 { throw ValidationError("--tries must be 0 or more") }
        if !(waitRetry >= 0 && waitRetry.isFinite) { throw ValidationError("--waitretry must be 0 or more seconds") }
        for value in [timeout, connectTimeout, readTimeout].compactMap({ $0 }) where !(value > 0 && value.isFinite) {
            throw ValidationError("timeouts must be positive numbers of seconds")
        }
        if split < 1 || split > 64 { throw ValidationError("--split must be between 1 and 64") }
        if let minSplitSize, Units.parseSize(minSplitSize) == nil {
            throw ValidationError("invalid --min-split-size '\(minSplitSize)': expected bytes, or a number with k, M or G")
        }
        if let limitRate, Units.parseSize(limitRate) == nil {
            throw ValidationError("invalid --limit-rate '\(limitRate)': expected bytes per second, or a number with k, M or G")
        }
        if let maxFilesize, Units.parseSize(maxFilesize) == nil {
            throw ValidationError("invalid --max-filesize '\(maxFilesize)': expected bytes, or a number with k, M, G or T")
        }
    }

    func apply(to configuration: inout SessionConfiguration) {
        configuration.retryPolicy.maxAttempts = tries
        configuration.retryPolicy.maxDelay = .milliseconds(Int64(waitRetry * 1000))
        configuration.retryPolicy.initialDelay = min(.seconds(1), configuration.retryPolicy.maxDelay)
        if let timeout {
            configuration.connectTimeout = .seconds(timeout)
            configuration.idleReadTimeout = .seconds(timeout)
        }
        if let connectTimeout { configuration.connectTimeout = .seconds(connectTimeout) }
        if let readTimeout { configuration.idleReadTimeout = .seconds(readTimeout) }
        configuration.maximumBodyBytes = maxFilesize.flatMap(Units.parseSize)
        configuration.maximumBytesPerSecond = limitRate.flatMap(Units.parseSize)
        configuration.segmentsPerDownload = split
        if let size = minSplitSize.flatMap(Units.parseSize) { configuration.minimumSegmentBytes = size }
    }
}
