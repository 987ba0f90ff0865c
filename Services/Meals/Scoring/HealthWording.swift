import EventContracts

/// The two sentences that come with an item's health score, built from the food's own name and numbers so
/// different foods read differently; supportive throughout, suggesting additions rather than judging.
enum HealthWording {
    /// Why the item scored as it did: how processed it is and its telling amounts per 100 g.
    static func reason(_ item: ScorableItem, density: NutrientDensity) -> String {
        let per100g = item.per100g
        var gives: [String] = []
        if density.fibre >= 0.5 { gives.append("\(Wording.amount(per100g.fiber)) g fibre") }
        if density.protein >= 0.5 { gives.append("\(Wording.amount(per100g.protein)) g protein") }
        var limits: [String] = []
        if density.sugar > 0 { limits.append("\(Wording.amount(per100g.sugars)) g sugar") }
        if density.saturatedFat > 0 { limits.append("\(Wording.amount(per100g.saturatedFat)) g saturated fat") }
        if density.sodium > 0 { limits.append("\(Wording.whole(per100g.sodium)) mg sodium") }
        // "Broccoli: whole or …" rather than "is", which would be wrong for plural names such as "apples".
        let opening = "\(Wording.opening(item.name)): \(item.traits.processing.label)"
        switch (gives.isEmpty, limits.isEmpty) {
        case (false, true):
            let lowSodium = per100g.sodium < 40 ? " and very little sodium" : ""
            return "\(opening), with \(Wording.list(gives)) per 100 g\(lowSodium)."
        case (false, false):
            return "\(opening), with \(Wording.list(gives)) but also \(Wording.list(limits)) per 100 g."
        case (true, false):
            return "\(opening), with \(Wording.list(limits)) per 100 g."
        case (true, true):
            let energy = Wording.whole(per100g.calories)
            return "\(opening), with \(energy) kcal and \(Wording.amount(per100g.protein)) g protein per 100 g."
        }
    }

    /// A specific next step: what would round the meal out, or what balances the item's main concern.
    static func encouragement(_ item: ScorableItem, density: NutrientDensity, rating: HealthRating) -> String {
        let name = Wording.inline(item.name)
        let portion = item.nutrients
        switch rating {
        case .nutritious, .good:
            if density.protein < 0.3 {
                return "Great pick — a protein like eggs, beans or fish alongside the \(name) would round out the meal."
            }
            if density.fibre < 0.3 {
                return "Nice choice for protein — vegetables or whole grains alongside the \(name) would add fibre."
            }
            return "Great pick — protein and fibre together make the \(name) a strong base for any meal."
        case .fair, .limited:
            let (sugar, saturatedFat) = (Wording.amount(portion.sugars), Wording.amount(portion.saturatedFat))
            let concerns = [
                (density.sugar, "having it with a meal, or a smaller serving, makes its \(sugar) g of sugar gentler on your day"),
                (density.saturatedFat, "vegetables or whole grains alongside balance its \(saturatedFat) g of saturated fat"),
                (density.sodium, "fresh vegetables and water alongside help balance its \(Wording.whole(portion.sodium)) mg of sodium"),
            ]
            if let main = concerns.max(by: { $0.0 < $1.0 }), main.0 > 0 {
                return "Enjoy the \(name) — \(main.1)."
            }
            if item.traits.processing == .ultraProcessed {
                return "Enjoy the \(name) — a less processed version next time would bring more of the nutrients your body uses."
            }
            return "Enjoy the \(name) — adding vegetables or a lean protein alongside would make this a fuller meal."
        }
    }
}
