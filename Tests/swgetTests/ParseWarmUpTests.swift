import ArgumentParser
import Testing
@testable import SwgetCLI

/// The types whose conformances are looked up ahead of the parse (``ParseWarmUp``).
@Suite("Parse warm-up")
struct ParseWarmUpTests {
    /// The list is the command's option groups, in declaration order: a group added to the
    /// command and not here would only be looked up by the parser itself (slower, still right).
    @Test func theListIsTheCommandsOptionGroups() throws {
        let command = try SwgetCommand.parse(["http://example.com/"])
        let declared = Mirror(reflecting: command).children
            .map { String(reflecting: type(of: $0.value)) }
            .filter { $0.hasPrefix("ArgumentParser.OptionGroup<") }
        let listed = ParseWarmUp.groups.map { "ArgumentParser.OptionGroup<\(String(reflecting: $0))>" }
        #expect(declared.count == 18)
        #expect(listed == declared)
    }

    /// The answers are the runtime's: groups are arguments, not commands, and not reflectable.
    @Test func theAnswersAreTheRuntimes() {
        for group in ParseWarmUp.groups {
            #expect(ParseWarmUp.kinds(of: group) == (command: false, arguments: true))
            #expect(!ParseWarmUp.isReflectable(group))
        }
        #expect(ParseWarmUp.kinds(of: SwgetCommand.self) == (command: true, arguments: true))
    }
}
