import Hummingbird

/// The body of a write of an existing entity: the entity (with `conflict` when the write lost) or its tombstone.
enum WriteAnswer<Body: ResponseEncodable & Sendable>: ResponseEncodable, Sendable {
    case entity(Body)
    case deleted(DeletedEntityBody)

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .entity(let body): try body.encode(to: encoder)
        case .deleted(let body): try body.encode(to: encoder)
        }
    }
}
