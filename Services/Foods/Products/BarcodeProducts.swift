import FoodData

/// What is stored under a barcode: at most one product from a user (`community`) and one from Open Food Facts, whose
/// data is preferred once it has the code (`BarcodeLookup`).
struct BarcodeProducts: Sendable, Equatable {
    var community: Product?
    var openFoodFacts: Product?

    init(community: Product? = nil, openFoodFacts: Product? = nil) {
        self.community = community
        self.openFoodFacts = openFoodFacts
    }

    /// The products of the first of `readings` that has any among `found`.
    init(_ found: [Product], readings: [GTIN]) {
        guard let gtin = readings.first(where: { gtin in found.contains { $0.gtin == gtin } }) else { return }
        community = found.first { $0.gtin == gtin && $0.source == .community }
        openFoodFacts = found.first { $0.gtin == gtin && $0.source == .openFoodFacts }
    }

    var isEmpty: Bool { community == nil && openFoodFacts == nil }
}
