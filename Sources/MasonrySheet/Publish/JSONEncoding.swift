extension JSON {
    /// `value` as a `JSON` value, its keys in the order its `encode(to:)` wrote them
    /// (Foundation's `JSONEncoder` on Linux does not keep that order, and the manifest's
    /// must be fixed). Handles what the layout's values encode: keyed and unkeyed
    /// containers, `Int` and `String`; anything else (nil, Bool, floating point, other
    /// integer widths) throws.
    public init(encoding value: some Encodable) throws {
        let root = JSONNode()
        try value.encode(to: JSONNodeEncoder(node: root))
        self = try root.json()
    }
}

/// One JSON value under construction.
private final class JSONNode {
    enum State {
        case empty
        case value(JSON)
        case object([(key: String, node: JSONNode)])
        case array([JSONNode])
        case unsupported(String)
    }

    var state = State.empty

    func json() throws -> JSON {
        switch state {
        case .empty: throw EncodingError.invalidValue((), .init(codingPath: [], debugDescription: "nothing was encoded"))
        case .value(let value): return value
        case .object(let members): return .object(try members.map { ($0.key, try $0.node.json()) })
        case .array(let elements): return .array(try elements.map { try $0.json() })
        case .unsupported(let what):
            throw EncodingError.invalidValue((), .init(codingPath: [], debugDescription: "\(what) cannot be encoded"))
        }
    }

    func child(forKey key: String) -> JSONNode {
        let child = JSONNode()
        if case .object(let members) = state { state = .object(members + [(key, child)]) }
        return child
    }

    func appendedChild() -> JSONNode {
        let child = JSONNode()
        if case .array(let elements) = state { state = .array(elements + [child]) }
        return child
    }

    /// Stores an `Int` or `String`; other scalars are marked unsupported, and any other value
    /// encodes itself into this node.
    func store<T: Encodable>(_ value: T) throws {
        switch value {
        case let integer as Int: state = .value(.int(integer))
        case let text as String: state = .value(.string(text))
        case is Bool, is any BinaryInteger, is any BinaryFloatingPoint: state = .unsupported("\(T.self)")
        default: try value.encode(to: JSONNodeEncoder(node: self))
        }
    }
}

private struct JSONNodeEncoder: Encoder {
    let node: JSONNode
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.state {} else { node.state = .object([]) }
        return KeyedEncodingContainer(KeyedJSONNodeContainer(node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.state = .array([])
        return UnkeyedJSONNodeContainer(node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleJSONNodeContainer(node: node) }
}

/// The generic `encode` also stands in for every scalar overload; `JSONNode.store` sorts them.
private struct KeyedJSONNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: JSONNode
    var codingPath: [any CodingKey] = []

    mutating func encodeNil(forKey key: Key) throws { node.child(forKey: key.stringValue).state = .unsupported("nil") }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try node.child(forKey: key.stringValue).store(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        JSONNodeEncoder(node: node.child(forKey: key.stringValue)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        JSONNodeEncoder(node: node.child(forKey: key.stringValue)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { JSONNodeEncoder(node: node.child(forKey: "super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { JSONNodeEncoder(node: node.child(forKey: key.stringValue)) }
}

private struct UnkeyedJSONNodeContainer: UnkeyedEncodingContainer {
    let node: JSONNode
    var codingPath: [any CodingKey] = []
    var count: Int {
        if case .array(let elements) = node.state { return elements.count }
        return 0
    }

    mutating func encodeNil() throws { node.appendedChild().state = .unsupported("nil") }
    mutating func encode<T: Encodable>(_ value: T) throws { try node.appendedChild().store(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        JSONNodeEncoder(node: node.appendedChild()).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { JSONNodeEncoder(node: node.appendedChild()).unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { JSONNodeEncoder(node: node.appendedChild()) }
}

private struct SingleJSONNodeContainer: SingleValueEncodingContainer {
    let node: JSONNode
    var codingPath: [any CodingKey] = []

    mutating func encodeNil() throws { node.state = .unsupported("nil") }
    mutating func encode<T: Encodable>(_ value: T) throws { try node.store(value) }
}
