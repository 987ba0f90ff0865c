import Foundation
import HTTPTypes
import ServiceDefaults

/// The methods the OpenAPI document declares for each path, so that a request for a known path with a method it does
/// not declare is 405 with `Allow` (RFC 9110, 15.5.6), not the 404 a service's router would give. Built once from the
/// document the gateway serves; a path the document does not describe gets no opinion (nil).
struct DeclaredMethods: Sendable {
    /// One path segment's node: literal segments by name, one parameter (`{id}`) beside them.
    final class Node: Sendable {
        let literals: [Substring: Node]
        let parameter: Node?
        let methods: [HTTPRequest.Method]

        init(literals: [Substring: Node], parameter: Node?, methods: [HTTPRequest.Method]) {
            self.literals = literals
            self.parameter = parameter
            self.methods = methods
        }
    }

    private let root: Node?

    /// No path known: every method goes on to the services.
    static let none = DeclaredMethods(root: nil)

    private init(root: Node?) {
        self.root = root
    }

    /// The paths and methods of an OpenAPI document (its `paths` object).
    init(openAPIDocument bytes: some Collection<UInt8>) throws {
        let document = try JSONDecoder().decode(PathsOnly.self, from: Data(bytes))
        var table: [[Substring]: [HTTPRequest.Method]] = [:]
        for (path, item) in document.paths {
            table[Self.segments(path)] = item.keys.compactMap { HTTPRequest.Method($0.uppercased()) }.filter(Self.operations.contains)
        }
        root = Self.node(of: table, depth: 0)
    }

    /// The methods declared for `path`, nil when the document does not describe it.
    func methods(for path: Substring) -> [HTTPRequest.Method]? {
        guard var node = root else { return nil }
        for segment in Self.segments(path) {
            if let literal = node.literals[segment] {
                node = literal
            } else if let parameter = node.parameter {
                node = parameter
            } else {
                return nil
            }
        }
        return node.methods.isEmpty ? nil : node.methods
    }

    /// The refusal of `method` on `path`: 405 with `Allow` when the path is known and the method is not declared.
    func refusal(of method: HTTPRequest.Method, on path: Substring) -> APIError? {
        guard let methods = methods(for: path), !methods.contains(method) else { return nil }
        let allow = methods.map(\.rawValue).joined(separator: ", ")
        return APIError(
            .methodNotAllowed, code: "method_not_allowed", message: "\(method.rawValue) is not allowed here; use \(allow).",
            details: ["method": "must be one of \(allow)"], headers: [.allow: allow])
    }

    /// The methods an OpenAPI path item may declare.
    private static let operations: Set<HTTPRequest.Method> = [.get, .put, .post, .delete, .options, .head, .patch, .trace]

    private static func segments(_ path: some StringProtocol) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true).map { Substring($0) }
    }

    private static func node(of table: [[Substring]: [HTTPRequest.Method]], depth: Int) -> Node {
        var literals: [Substring: [[Substring]: [HTTPRequest.Method]]] = [:]
        var parameters: [[Substring]: [HTTPRequest.Method]] = [:]
        var methods: [HTTPRequest.Method] = []
        for (segments, declared) in table {
            guard segments.count > depth else {
                methods = declared.sorted { $0.rawValue < $1.rawValue }
                continue
            }
            let segment = segments[depth]
            if segment.hasPrefix("{") && segment.hasSuffix("}") {
                parameters[segments] = declared
            } else {
                literals[segment, default: [:]][segments] = declared
            }
        }
        return Node(
            literals: literals.mapValues { node(of: $0, depth: depth + 1) },
            parameter: parameters.isEmpty ? nil : node(of: parameters, depth: depth + 1), methods: methods)
    }

    /// The part of an OpenAPI document read here.
    private struct PathsOnly: Decodable {
        var paths: [String: [String: IgnoredValue]]
    }

    /// Any JSON value, skipped.
    private struct IgnoredValue: Decodable {
        init(from decoder: any Decoder) throws {}
    }
}
