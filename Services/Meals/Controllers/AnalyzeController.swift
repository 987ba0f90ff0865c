import BackendKit
import FoodData
import Foundation
import Hummingbird
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// `POST /api/analyze`: a photo (through the vision provider) or a text (offline) into a stored, scored,
/// not yet consumed meal; 201 with the meal. Nothing is stored when the analysis fails. What a photo cost at the
/// provider is counted whether it succeeded or not, and photo answers carry `usageWarning` once the user's own keys
/// have reached 80% of their monthly budget.
struct AnalyzeController: Sendable {
    let store: any MealStore
    /// The profile each meal is dated and scored with (waiting for a new user's first one).
    let profiles: any CallerProfileSource
    let foods: any FoodCatalogSource
    let reader: AnalysisRequestReader
    /// The user's own provider or the server's.
    let analyzers: PhotoAnalyzerChooser
    /// Signs the photo URLs of the meals it answers.
    let photos: PhotoURLSigner
    /// Counts what photos cost at the provider and warns past 80% of the user's budget.
    let usage: VisionUsageMeter
    let now: @Sendable () -> Date

    static let maxTextLength = 2000

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/api/analyze", use: analyze)
    }

    @Sendable func analyze(request: Request, context: AppRequestContext) async throws -> EditedResponse<AnalyzedMealBody> {
        let caller = try CallerIdentity(request)
        let input = try await reader.read(request, context: context)
        let now = now()
        var fields = MealFieldReader(now: now)
        let mealType = fields.mealType(input.mealType)
        let captureKind = fields.captureKind(input.captureKind) ?? .fullMeal
        let eatenAt = fields.eatenAt(input.eatenAt) ?? now
        let text = fields.text(input.text, field: "text", limit: Self.maxTextLength)
        let hint = fields.text(input.hint, field: "hint", limit: 500)
        let tags = fields.tags(input.tags)
        if input.photo == nil && text == nil && fields.problems["text"] == nil {
            fields.merge(APIError.invalid(["image": "Send a photo (image) or a description (text)."]))
        }
        if input.photo != nil && text != nil {
            fields.merge(APIError.invalid(["text": "Send either a photo or a text, not both; use hint to describe a photo."]))
        }
        try fields.check()

        let catalog = try foods.catalog()
        let profile = try await profiles.profile(of: caller.userId, logger: context.logger)
        let drafts: [MealItemDraft]
        var unrecognised: [String] = []
        if let photo = input.photo {
            drafts = try await analyzePhoto(photo, userId: caller.userId, hint: hint, catalog: catalog, logger: context.logger)
        } else {
            (drafts, unrecognised) = TextMealAnalyzer(catalog: catalog).analyze(text ?? "")
            guard !drafts.isEmpty else {
                throw APIError(
                    .unprocessableContent, code: "no_food_recognised",
                    message: "No food in the description matched the food table; name the foods, e.g. \"2 eggs and a slice of toast\".",
                    details: ["text": unrecognised.joined(separator: ", ")])
            }
        }
        let meal = MealFactory.make(
            userId: caller.userId, origin: input.photo == nil ? .text : .photo,
            composition: MealComposer.compose(drafts, profile: profile.scoring), profile: profile, description: text,
            mealType: mealType, captureKind: captureKind, eatenAt: eatenAt, consumed: false, notes: nil, unrecognised: unrecognised,
            photoId: input.photo.map { _ in UUID() }, now: now, tags: tags ?? [])
        let stored = try await store.create(meal, photo: input.photo, logger: context.logger)
        let warning = input.photo == nil ? nil : await usage.warning(for: caller.userId, logger: context.logger)
        return EditedResponse(
            status: .created, headers: MealFactory.headers(for: stored),
            response: AnalyzedMealBody(meal: MealBody(stored, photos: photos), usageWarning: warning))
    }

    /// The provider's items grounded in the table; its failures become 503 or 502 answers, a photo without food 422.
    /// Whatever the provider answered is counted in the user's usage, failed or not.
    private func analyzePhoto(
        _ photo: PhotoUpload, userId: UUID, hint: String?, catalog: FoodCatalog, logger: Logger
    ) async throws -> [MealItemDraft] {
        let photoAnalyzer = try await analyzers.analyzer(for: userId, logger: logger)
        let tally = TokenTally()
        do {
            let drafts = try await photoAnalyzer.analyze(photo, hint: hint, caller: userId, catalog: catalog, tally: tally)
            await usage.record(tally, userId: userId, usageKey: photoAnalyzer.usageKey, model: photoAnalyzer.provider.model, logger: logger)
            return drafts
        } catch let error as VisionError {
            await usage.record(tally, userId: userId, usageKey: photoAnalyzer.usageKey, model: photoAnalyzer.provider.model, logger: logger)
            if error.saysProviderIsUnwell {
                logger.warning("photo analysis failed", metadata: ["reason": "\(error)"])
            } else {
                logger.info("no food recognised on the photo", metadata: ["reason": "\(error)"])
            }
            throw error.apiError
        }
    }
}
