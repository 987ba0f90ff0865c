import Foundation

@testable import FoodsService

/// One product as both stores hold it: its id in each.
struct ProductRef: Sendable, Equatable {
    var postgres: UUID
    var memory: UUID

    init(_ pair: (postgres: Product, memory: Product)) {
        postgres = pair.postgres.id
        memory = pair.memory.id
    }

    func id(_ side: ProductStorePair.Side) -> UUID { side == .postgres ? postgres : memory }
}
