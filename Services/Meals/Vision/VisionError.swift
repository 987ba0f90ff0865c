import Hummingbird
import ServiceDefaults

/// Why a photo could not be turned into items.
enum VisionError: Error, Equatable {
    /// Recent photos failed (several users', or enough of this user's own), so the provider is not asked until
    /// `retryAfter` has passed.
    case circuitOpen(retryAfter: Duration)
    /// Transport errors, timeouts, refusals, and 429 or 5xx answers once the retries are spent.
    case failed(String)
    /// The model answered, but with something that is not JSON of the asked shape.
    case malformedAnswer(String)
    /// The model answered properly but named no food or drink, declined to describe the photo, or described it
    /// implausibly (an absurd portion, more items than allowed): the photo's problem, not the provider's.
    case noFoodRecognised(String)
    /// Asked to read a nutrition label, the model answered properly but found no legible table, or numbers no label
    /// holds: the photo's problem, as `noFoodRecognised` is.
    case unreadableLabel(String)
    /// The provider refused the API key (401 or 403).
    case credentialsRefused

    /// Whether this says the provider is unwell, so that it counts towards the circuit breaker: everything but a photo
    /// without food or an unreadable label, which a healthy provider answers and any user can send.
    var saysProviderIsUnwell: Bool {
        switch self {
        case .noFoodRecognised, .unreadableLabel: false
        case .circuitOpen, .failed, .malformedAnswer, .credentialsRefused: true
        }
    }

    /// The answer for the client: 503 `vision_unavailable` with `Retry-After` when the provider is down or the
    /// circuit is open, 502 `analysis_failed` when the model's answer was unusable (another photo may work),
    /// 422 `no_food_recognised` with what to do instead when the model found no plausible food on the photo, 422
    /// `label_unreadable` with the reason when it found no legible nutrition table.
    var apiError: APIError {
        switch self {
        case .circuitOpen(let retryAfter):
            let seconds = max(1, Int(retryAfter.timeInterval.rounded(.up)))
            return APIError(
                .serviceUnavailable, code: "vision_unavailable", message: "Photo analysis is unavailable; try again shortly.",
                headers: [.retryAfter: String(seconds)])
        case .failed:
            return APIError(
                .serviceUnavailable, code: "vision_unavailable", message: "Photo analysis failed; try again shortly.",
                headers: [.retryAfter: "5"])
        case .credentialsRefused:
            return APIError(
                .badGateway, code: "vision_key_refused",
                message: "The vision provider refused the API key; if you set your own, check it (PUT /api/users/vision-key).")
        case .malformedAnswer:
            return APIError(
                .badGateway, code: "analysis_failed",
                message: "The photo could not be read as a meal; try another photo or add the items by hand.")
        case .noFoodRecognised:
            return APIError(
                .unprocessableContent, code: "no_food_recognised",
                message: "No food or drink was recognised on the photo. Retake it closer, in good light and with the whole plate "
                    + "in view, or describe the meal in text instead, e.g. \"2 eggs and a slice of toast\".",
                details: ["image": "No plausible food or drink was recognised.", "suggestions": "retake_photo,send_text"])
        case .unreadableLabel(let reason):
            return APIError(
                .unprocessableContent, code: "label_unreadable",
                message: "The nutrition label could not be read: \(reason). Photograph the nutrition table flat, close and without "
                    + "glare, or type its values in with POST /api/foods/products.",
                details: ["image": "No legible nutrition table.", "suggestions": "retake_photo,enter_label"])
        }
    }

    /// 503 `vision_not_configured`: no provider is set up (`MEALS_VISION_BASE_URL` is unset).
    static var notConfigured: APIError {
        APIError(
            .serviceUnavailable, code: "vision_not_configured",
            message: "Photo analysis is not set up on this server; describe the meal in text instead.", headers: [.retryAfter: "3600"])
    }
}
