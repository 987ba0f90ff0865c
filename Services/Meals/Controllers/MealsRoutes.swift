import BackendKit
import Foundation
import Hummingbird
import ServiceDefaults

/// The routes of the meals service's own data (meals, their photos, custom meals, the food table, the sync feed and
/// import), wired from the stores the composition root makes in PostgreSQL and router tests make in memory. Photo
/// analysis, users' vision keys and usage, and the export part are wired by the composition root beside them.
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
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        let maker = ManualMealMaker(foods: foods, now: now)
        FoodController(foods: foods).addRoutes(to: router)
        MealController(store: meals, profiles: profiles, foods: foods, maker: maker, photos: photos, now: now).addRoutes(to: router)
        MealPhotoController(store: meals, reader: photoReader, photos: photos, now: now).addRoutes(to: router)
        CustomMealController(
            customMealStore: customMeals, store: meals, profiles: profiles, foods: foods, photos: photos, now: now
        ).addRoutes(to: router)
        MealsSyncController(feed: changeFeed, foods: foods, photos: photos).addRoutes(to: router)
        MealsImportController(store: meals, customMealStore: customMeals, profiles: profiles, maker: maker).addRoutes(to: router)
    }
}
