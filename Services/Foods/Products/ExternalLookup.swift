/// Why Open Food Facts gave no product for a barcode we lack, as a 404 `product_not_found` says in
/// `details.externalLookup`: it has none (`not_found`, now or within `FOODS_OFF_MISS_TTL_HOURS`), it could not be
/// asked or did not answer (`unavailable`: unreachable, too slow, a 5xx or an unreadable answer, the breaker open),
/// the requests allowed are spent (`budget_exhausted`: this server's per-minute budget, or Open Food Facts' 429), or
/// look-ups are switched off (`disabled`). Only `not_found` is remembered: after the others the next look-up asks again.
enum ExternalLookup: String, Sendable, Equatable {
    case notFound = "not_found"
    case unavailable
    case budgetExhausted = "budget_exhausted"
    case disabled
}
