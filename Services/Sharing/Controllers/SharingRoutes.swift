import Foundation
import Hummingbird
import Metrics
import ServiceDefaults

/// Every route of the sharing service but the export part, wired from the parts the composition root makes (and
/// router tests make in memory): the share API (`ShareController`) and the public page, card and photo
/// (`SharedPageController`), which open links the same way and count views in the same `ViewCounter`.
struct SharingRoutes {
    let store: any SharingStore
    let meals: any MealsLookup
    let views: ViewCounter
    let renderer: SharedPageRenderer
    let rasteriser: CardRasteriser
    let publicBaseURL: String
    /// How many links' encoded JSON views are kept (`SHARING_VIEWS_CACHE_LINKS`).
    let viewCacheLinks: Int
    let mealWait: MealWait
    var metrics: any MetricsFactory = MetricsSystem.factory
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        let addresses = PublicAddresses(baseURL: publicBaseURL)
        let opener = LinkOpener(store: store, views: views)
        ShareController(
            store: store, meals: meals, opener: opener,
            views: SharedViewAnswers(opener: opener, cache: SharedViewCache(capacity: viewCacheLinks), addresses: addresses),
            addresses: addresses, mealWait: mealWait, now: now
        ).addRoutes(to: router)
        let cardImages = ShareCardImages(store: store, renderer: renderer, rasteriser: rasteriser, flights: RenderFlights(), metrics: metrics)
        SharedPageController(opener: opener, renderer: renderer, cardImages: cardImages, addresses: addresses, now: now)
            .addRoutes(to: router)
    }
}
