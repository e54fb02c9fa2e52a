import ArgumentParser

/// Waiting between downloads of a list (wget's politeness options).
struct WaitOptions: ParsableArguments {
    @Option(name: [.customShort("w"), .customLong("wait")],
            help: ArgumentHelp("""
                Wait SECONDS between downloads: after one ends before the next starts (-j 1), or between \
                starts with -j N.
                """, valueName: "SECONDS"))
    var wait: Double?

    @Flag(name: .customLong("random-wait"), help: "Wait between 0.5 and 1.5 times --wait, chosen anew each time (wget).")
    var randomWait = false
}

extension WaitOptions {
    func validate() throws {
        if let wait, !(wait >= 0 && wait.isFinite && wait <= 86_400 * 365) {
            throw ValidationError("--wait must be 0 or more seconds")
        }
    }

    /// The pacing of a batch, nil when downloads follow each other at once.
    var pacing: Batch.Pacing? {
        guard let wait, wait > 0 else { return nil }
        return Batch.Pacing(wait: .milliseconds(Int64((wait * 1000).rounded())), random: randomWait)
    }
}
