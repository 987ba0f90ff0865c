import BackendKit
import FoodData
import Foundation
import Hummingbird
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// `POST /api/analyze`: a photo (through the vision provider) or a text (offline) into a stored, scored,
/// not yet consumed meal, 201 with the meal; or, with `kind=label`, a photo of a nutrition-facts panel into a draft
/// product, 200 with it (`LabelDraftBody`; nothing stored, the photo not kept). Nothing is stored when the analysis
/// fails. What a photo cost at the provider is counted whether it succeeded or not, and photo answers carry
/// `usageWarning` once the user's own keys have reached 80% of their monthly budget.
struct AnalyzeController: Sendable {
    /// What the request asks for: a meal (the default) or a label.
    enum Kind: String {
        case meal, label
    }

    let store: any MealStore
    /// The profile each meal is dated and scored with (waiting for a new user's first one).
    let profiles: any CallerProfileSource
    let foods: any FoodCatalogSource
    let reader: AnalysisRequestReader
    /// The user's own provider or the server's, its costs counted.
    let vision: MeteredVision
    /// Signs the photo URLs of the meals it answers.
    let photos: PhotoURLSigner
    let now: @Sendable () -> Date

    static let maxTextLength = 2000

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/api/analyze", use: analyze)
    }

    @Sendable func analyze(request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try CallerIdentity(request)
        let input = try await reader.read(request, context: context)
        guard let kind = Kind(rawValue: input.kind ?? Kind.meal.rawValue) else {
            throw APIError.invalid(["kind": "Use meal (the default) or label."])
        }
        switch kind {
        case .meal: return try await analyzeMeal(input, caller: caller, context: context).response(from: request, context: context)
        case .label: return try await readLabel(input, caller: caller, context: context).response(from: request, context: context)
        }
    }

    private func analyzeMeal(_ input: AnalysisInput, caller: CallerIdentity, context: AppRequestContext) async throws -> EditedResponse<
        AnalyzedMealBody
    > {
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
        if input.barcode != nil {
            fields.merge(APIError.invalid(["barcode": "Only for kind=label: a barcode is read into a draft product, not a meal."]))
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
            drafts = try await vision.ask(for: caller.userId, logger: context.logger) { analyzer, tally in
                try await analyzer.analyze(photo, hint: hint, caller: caller.userId, catalog: catalog, tally: tally)
            }
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
        let warning = input.photo == nil ? nil : await vision.warning(for: caller.userId, logger: context.logger)
        return EditedResponse(
            status: .created, headers: MealFactory.headers(for: stored),
            response: AnalyzedMealBody(meal: MealBody(stored, photos: photos), usageWarning: warning))
    }

    /// `kind=label`: the label on the photo read into a draft product; 422 naming every field that belongs to meals only.
    private func readLabel(_ input: AnalysisInput, caller: CallerIdentity, context: AppRequestContext) async throws -> LabelDraftBody {
        var fields = MealFieldReader(now: now())
        let hint = fields.text(input.hint, field: "hint", limit: 500)
        var problems = fields.problems
        if input.photo == nil { problems["image"] = "Send a photo of the nutrition table." }
        if input.text != nil { problems["text"] = "A label is read from a photo; to type its values in, use POST /api/foods/products." }
        let mealOnly = [("mealType", input.mealType), ("captureKind", input.captureKind), ("eatenAt", input.eatenAt), ("tags", input.tags?.joined())]
        for (name, value) in mealOnly where value != nil { problems[name] = "Only for kind=meal: a label is not logged as a meal." }
        var barcode: GTIN?
        if let code = input.barcode {
            switch GTIN.readings(of: code) {
            case .success(let readings): barcode = readings.first
            case .failure(let problem): problems["barcode"] = "This is not a barcode we can read: \(problem)."
            }
        }
        guard problems.isEmpty, let photo = input.photo else { throw APIError.invalid(problems) }
        let reading = try await vision.ask(for: caller.userId, logger: context.logger) { analyzer, tally in
            try await analyzer.provider.readLabel(photo, hint: hint, caller: caller.userId, tally: tally)
        }
        return LabelDraftBody(reading: reading, barcode: barcode, usageWarning: await vision.warning(for: caller.userId, logger: context.logger))
    }
}
