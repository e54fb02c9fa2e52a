import Testing

/// One row of a state machine's transition table: from a named start state, an event gives an
/// action and leaves the machine in a state, both written as the labels the table tests compare.
struct MachineTransition<Start: RawRepresentable & Sendable, Event: Sendable>: CustomTestStringConvertible, Sendable
where Start.RawValue == String {
    let start: Start
    let event: Event
    let action: String
    let after: String
    var testDescription: String { "\(start.rawValue) + \(event) → \(action), \(after)" }
}
