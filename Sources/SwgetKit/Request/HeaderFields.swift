/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Order and duplicates are preserved exactly as sent or received; lookups compare names
/// ASCII-case-insensitively, as RFC 9110 requires.
public struct HeaderFields: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One field: its name as sent or received (case kept) and its value.
    public typealias Element = (name: String, value: String)

    private var fields: [Element]

    /// No fields.
    public init() { fields = [] }

    /// These name-value pairs, in this order, duplicates kept.
    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// The fields of a received head (NIO's `HTTPHeaders`), in order, copied once.
    init<Fields: Collection<(name: String, value: String)>>(fields: Fields) {
        self.fields = Array(fields)
    }

    /// The literal's fields in the order written (`["Accept": "*/*"]`).
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value for `name`, or nil.
    public subscript(name: String) -> String? {
        index(named: name, from: 0).map { fields[$0].value }
    }

    /// The value of the one field named `name`; nil when there is none or more than one.
    func soleValue(for name: String) -> String? {
        guard let first = index(named: name, from: 0), index(named: name, from: first + 1) == nil else { return nil }
        return fields[first].value
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        var values: [String] = []
        var next = index(named: name, from: 0)
        while let index = next {
            values.append(fields[index].value)
            next = self.index(named: name, from: index + 1)
        }
        return values
    }

    /// Whether a comma-separated element of a field named `name`, white space trimmed, is
    /// `token` (ASCII case-insensitively): `Connection: close`. Read in place, no strings made.
    public func containsToken(_ token: String, in name: String) -> Bool {
        token.withBytes { wanted in
            var next = index(named: name, from: 0)
            while let index = next {
                if fields[index].value.withBytes({ Self.elements(of: $0, include: wanted) }) { return true }
                next = self.index(named: name, from: index + 1)
            }
            return false
        }
    }

    /// The position of the first field named `name` at or after `start`. By index, names
    /// borrowed in place and lengths compared first: `first(where:)` copied each (name, value)
    /// pair out, two retains and releases per field, ~1,000 instructions per lookup.
    /// Through the array's buffer: subscripting the array itself retained and released each
    /// field's name on the way (about 400 instructions a lookup over eight fields).
    private func index(named name: String, from start: Int) -> Int? {
        fields.withUnsafeBufferPointer { fields in
            var index = start
            while index < fields.count {
                // Lengths first, inside: most names it is compared with differ in length.
                if fields[index].name.caseInsensitiveEquals(name) { return index }
                index += 1
            }
            return nil
        }
    }

    /// Whether one of the comma-separated elements of `bytes` is `wanted`.
    private static func elements(of bytes: UnsafeBufferPointer<UInt8>, include wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        let isOWS = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let lower = { (byte: UInt8) in byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
        var start = 0
        while start <= bytes.count {
            let end = ByteScan.first(UInt8(ascii: ","), in: bytes, from: start) ?? bytes.count
            var first = start, last = end
            while first < last, isOWS(bytes[first]) { first += 1 }
            while last > first, isOWS(bytes[last - 1]) { last -= 1 }
            if last - first == wanted.count {
                var index = 0
                while index < wanted.count, lower(bytes[first + index]) == lower(wanted[index]) { index += 1 }
                if index == wanted.count { return true }
            }
            start = end + 1
        }
        return false
    }

    /// Whether any field is named `name` (compared case-insensitively).
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Appends a field, keeping any existing ones with the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field named `name` with one field (or removes them when `value` is nil).
    public mutating func set(_ name: String, _ value: String?) {
        remove(name)
        if let value { add(name, value) }
    }

    /// Removes every field named `name` (compared case-insensitively).
    public mutating func remove(_ name: String) {
        // Absent (most calls): no mutation, so fields shared with another copy stay shared
        // (`removeAll` copies a shared array even when it removes nothing).
        guard index(named: name, from: 0) != nil else { return }
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// True when no field was changed since `other` was copied from this (or this from it):
    /// the two still share one array. A cheap "changed?" for code that builds a copy and
    /// stores it back only when it differs; false does not mean the fields differ.
    func sharesFields(with other: HeaderFields) -> Bool {
        fields.withUnsafeBufferPointer { mine in other.fields.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress } }
    }

    /// The number of fields, duplicates included.
    public var count: Int { fields.count }

    /// The fields in order, as `(name, value)` pairs.
    public func makeIterator() -> IndexingIterator<[Element]> { fields.makeIterator() }

    /// The same fields in the same order; names compare case-sensitively here, unlike lookups.
    public static func == (lhs: HeaderFields, rhs: HeaderFields) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs (HTTP's optional white space),
    /// found by byte (a search by Character walks grapheme clusters).
    var trimmingOWS: String { self[...].trimmingOWS }

    /// The comma-separated elements of a header value (RFC 9110's `#rule`), cut by byte.
    func commaSeparated(omittingEmpty: Bool = true) -> [Substring] { self[...].commaSeparated(omittingEmpty: omittingEmpty) }
}

extension Substring {
    /// See ``Swift/String/trimmingOWS``.
    var trimmingOWS: String {
        let bytes = utf8
        let isText: (UInt8) -> Bool = { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        guard let start = bytes.firstIndex(where: isText), let last = bytes.lastIndex(where: isText) else { return "" }
        // The end is the byte after the last one kept: a scalar boundary even after a
        // multi-byte character.
        return String(self[start..<bytes.index(after: last)])
    }

    /// See ``Swift/String/commaSeparated(omittingEmpty:)``.
    func commaSeparated(omittingEmpty: Bool = true) -> [Substring] {
        utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: omittingEmpty).map { self[$0.startIndex..<$0.endIndex] }
    }
}
