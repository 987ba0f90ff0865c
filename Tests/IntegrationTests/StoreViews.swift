import Foundation

@testable import FoodsService

/// Answers of the store in the shape both can agree on.
enum StoreViews {
    static func creation(_ creation: ProductCreation) -> String {
        switch creation {
        case .created(let product): "created \(ProductView(product))"
        case .duplicate(let product): "duplicate of \(ProductView(product))"
        case .limited(let retryAfter): "limited for \(retryAfter) s"
        }
    }

    static func edit(_ edit: ProductEdit) -> String {
        switch edit {
        case .edited(let product): "edited \(ProductView(product)) \(product.details.name) \(product.updatedAt.timeIntervalSince1970)"
        case .notFound: "not found"
        case .notAuthor: "not author"
        case .versionMismatch(let current): "version mismatch at \(current)"
        }
    }

    static func listed(_ entries: [(product: Product, reports: [ProductReport])]) -> [String] {
        entries.map { entry in
            "\(ProductView(entry.product)) reports \(entry.reports.map { "\($0.reason.rawValue)/\($0.counted)/\($0.note ?? "-")" })"
        }
    }

    static func versions(_ versions: [ProductVersion]) -> [String] {
        versions.map { "v\($0.version) \($0.details.name) \($0.editedAt.timeIntervalSince1970)" }
    }

    static func trust(_ trust: [UUID: ProductTrust], of refs: [ProductRef], side: ProductStorePair.Side, openFoodFacts: [ProductRef]) -> [String] {
        refs.map { ref in
            guard let found = trust[ref.id(side)] else { return "none" }
            let sibling = found.openFoodFactsProductId.map { id in openFoodFacts.firstIndex { $0.id(side) == id }.map(String.init) ?? "unknown" }
            return "\(found.confirmations) \(sibling ?? "-") \(found.differsFromOpenFoodFacts.map(String.init) ?? "-")"
        }
    }
}
