import BackendKit
import Foundation
import Hummingbird
import ServiceDefaults

/// Every route of the meals service but the export part: meals, their photos, custom meals, the food table, the sync
/// feed and import, photo and text analysis, users' own vision keys and what their photos cost. Wired from the stores
/// the composition root makes in PostgreSQL and router tests make in memory.
struct MealsRoutes {
    let meals: any MealStore
    let customMeals: any CustomMealStore
    let changeFeed: any MealsChangeFeed
    let profiles: any CallerProfileSource
    let foods: any FoodCatalogSource
    /// Reads photos from request bodies, up to the upload limit.
    let photoReader: AnalysisRequestReader
    /// Signs the photo URLs of the meals answered, and checks them when they come back.
    let photos: PhotoURLSigner
    /// The user's own provider or the server's, for photos.
    let analyzers: PhotoAnalyzerChooser
    let visionKeys: VisionKeyVault
    /// Asks the provider whether a key works before it is stored.
    let keyCheck: VisionKeyCheck
    let baseURLPolicy: VisionBaseURLPolicy
    let visionUsage: any VisionUsageStore
    let visionPrices: VisionPrices
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        let maker = ManualMealMaker(foods: foods, now: now)
        MealController(store: meals, profiles: profiles, foods: foods, maker: maker, photos: photos, now: now).addRoutes(to: router)
        MealPhotoController(store: meals, reader: photoReader, photos: photos, now: now).addRoutes(to: router)
        CustomMealController(
            customMealStore: customMeals, store: meals, profiles: profiles, foods: foods, photos: photos, now: now
        ).addRoutes(to: router)
        MealsSyncController(feed: changeFeed, foods: foods, photos: photos).addRoutes(to: router)
        MealsImportController(store: meals, customMealStore: customMeals, profiles: profiles, maker: maker).addRoutes(to: router)
        AnalyzeController(
            store: meals, profiles: profiles, foods: foods, reader: photoReader,
            vision: MeteredVision(analyzers: analyzers, usage: VisionUsageMeter(store: visionUsage, prices: visionPrices, now: now)),
            photos: photos, now: now
        ).addRoutes(to: router)
        VisionKeyController(vault: visionKeys, policy: baseURLPolicy, check: keyCheck).addRoutes(to: router)
        VisionUsageController(usage: visionUsage, keys: visionKeys.store, prices: visionPrices, now: now).addRoutes(to: router)
    }
}
