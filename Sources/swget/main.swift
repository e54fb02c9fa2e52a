// The swget command: everything it does lives in the SwgetCLI library, so tests import a
// library instead of the executable. The parse runs here, on the main thread, before the
// first thread switch.
import SwgetCLI

let command = Swget.parse()
await Swget.run(command)
