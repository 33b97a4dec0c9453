/// A minimal JSON encoder that keeps keys in the order `encode(to:)` wrote them (Foundation's
/// `JSONEncoder` on Linux does not), so tests can check the manifest's key order.
/// Handles what the layout encodes: objects, arrays, integers and strings.
enum OrderedJSONEncoder {
    static func encode(_ value: some Encodable) throws -> String {
        let root = Node()
        try value.encode(to: NodeEncoder(node: root))
        return root.text
    }
}

/// One JSON value under construction.
private final class Node {
    enum Value {
        case scalar(String)
        case object([(key: String, node: Node)])
        case array([Node])
    }

    var value = Value.scalar("null")

    var text: String {
        switch value {
        case .scalar(let text): text
        case .object(let members): "{" + members.map { "\"\($0.key)\":\($0.node.text)" }.joined(separator: ",") + "}"
        case .array(let elements): "[" + elements.map(\.text).joined(separator: ",") + "]"
        }
    }

    func child(forKey key: String) -> Node {
        let child = Node()
        if case .object(let members) = value { value = .object(members + [(key, child)]) }
        return child
    }

    func appendedChild() -> Node {
        let child = Node()
        if case .array(let elements) = value { value = .array(elements + [child]) }
        return child
    }
}

private struct NodeEncoder: Encoder {
    let node: Node
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.value {} else { node.value = .object([]) }
        return KeyedEncodingContainer(KeyedNodeContainer(node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.value = .array([])
        return UnkeyedNodeContainer(node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleNodeContainer(node: node) }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    var codingPath: [any CodingKey] = []

    mutating func encodeNil(forKey key: Key) throws { node.child(forKey: key.stringValue).value = .scalar("null") }
    mutating func encode(_ value: String, forKey key: Key) throws { node.child(forKey: key.stringValue).value = .scalar("\"\(value)\"") }
    mutating func encode(_ value: Int, forKey key: Key) throws { node.child(forKey: key.stringValue).value = .scalar("\(value)") }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try value.encode(to: NodeEncoder(node: node.child(forKey: key.stringValue)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.child(forKey: key.stringValue)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.child(forKey: key.stringValue)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.child(forKey: "super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(node: node.child(forKey: key.stringValue)) }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey] = []
    var count: Int {
        if case .array(let elements) = node.value { return elements.count }
        return 0
    }

    mutating func encodeNil() throws { node.appendedChild().value = .scalar("null") }
    mutating func encode<T: Encodable>(_ value: T) throws { try value.encode(to: NodeEncoder(node: node.appendedChild())) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.appendedChild()).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { NodeEncoder(node: node.appendedChild()).unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.appendedChild()) }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey] = []

    mutating func encodeNil() throws { node.value = .scalar("null") }
    mutating func encode(_ value: Int) throws { node.value = .scalar("\(value)") }
    mutating func encode(_ value: String) throws { node.value = .scalar("\"\(value)\"") }
    mutating func encode<T: Encodable>(_ value: T) throws { try value.encode(to: NodeEncoder(node: node)) }
}
