import Hummingbird
import ServiceDefaults

/// Why a photo could not be turned into items.
enum VisionError: Error, Equatable {
    /// Recent photos failed, so the provider is not asked until `retryAfter` has passed.
    case circuitOpen(retryAfter: Duration)
    /// Transport errors, timeouts, refusals, and 429 or 5xx answers once the retries are spent.
    case failed(String)
    /// The model answered, but with something that is not JSON of the asked shape or not a plausible meal.
    case malformedAnswer(String)
    /// The provider refused the API key (401 or 403).
    case credentialsRefused

    /// The answer for the client: 503 `vision_unavailable` with `Retry-After` when the provider is down or the
    /// circuit is open, 502 `analysis_failed` when the model's answer was unusable (another photo may work).
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
        }
    }

    /// 503 `vision_not_configured`: no provider is set up (`MEALS_VISION_BASE_URL` is unset).
    static var notConfigured: APIError {
        APIError(
            .serviceUnavailable, code: "vision_not_configured",
            message: "Photo analysis is not set up on this server; describe the meal in text instead.", headers: [.retryAfter: "3600"])
    }
}
