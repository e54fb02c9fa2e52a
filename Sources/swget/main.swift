// The swget command: everything it does lives in the SwgetCLI library, so tests import a
// library instead of the executable.
import SwgetCLI

await Swget.main()
