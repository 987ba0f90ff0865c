import AsyncHTTPClient
import Foundation
import HTTPTypes
import Logging
import NIOCore
import ServiceDefaults
import WireJSON

/// The sharing service's internal HTTP calls, both to the meals service and on the meal owner's behalf (the meals
/// service checks ownership again): `GET /api/meals/:id/photo` when an owner shares a meal with its photo (fetched once
/// and copied, so public views never reach the meals service), and `GET /api/meals/:id` when a share request has waited
/// for the meal's event in vain (does the meal exist at all?). Each call carries the share request's `X-Request-Id`
/// and, while tracing is on, its trace (`traceparent`), so the meals service's logs and span join the request that
/// caused it; each has the same time limit, and a failure is logged to the share request's `logger`.
struct MealsClient: MealsLookup {
    let client: HTTPClient
    let mealsURL: String
    /// The time limit of each call (`SHARING_PHOTO_TIMEOUT_SECONDS`).
    let timeout: Duration
    /// The largest photo copied (`SHARING_PHOTO_MAX_BYTES`).
    let maxBytes: Int

    /// The meal's photo; nil when the meals service has none for this caller. 503 when it cannot be reached.
    func photo(mealId: UUID, for caller: CallerIdentity, requestId: String, logger: Logger) async throws -> MealPhoto? {
        do {
            let response = try await send("/api/meals/\(mealId.lowercasedString)/photo", for: caller, requestId: requestId)
            switch response.status.code {
            case 200:
                let mediaType = response.headers.first(name: "content-type") ?? "application/octet-stream"
                guard mediaType.hasPrefix("image/") else { throw MealsAnswerError.notAnImage }
                return MealPhoto(mediaType: mediaType, bytes: try await response.body.collect(upTo: maxBytes))
            case 404:
                return nil
            default:
                throw MealsAnswerError.status(Int(response.status.code))
            }
        } catch {
            logger.warning("meal photo fetch failed", metadata: ["meal_id": .string(mealId.lowercasedString), "reason": "\(error)"])
            throw APIError.unavailable("The meal's photo cannot be copied right now; try again shortly or share without the photo.")
        }
    }

    /// Whether the meals service holds `mealId` for this caller: 200 yes, 404 no. 503 when it cannot be reached or
    /// answers anything else.
    func holds(mealId: UUID, for caller: CallerIdentity, requestId: String, logger: Logger) async throws -> Bool {
        do {
            let response = try await send("/api/meals/\(mealId.lowercasedString)", for: caller, requestId: requestId)
            // Only the status matters; the meal itself is read, and dropped, as it arrives.
            for try await _ in response.body {}
            switch response.status.code {
            case 200: return true
            case 404: return false
            default: throw MealsAnswerError.status(Int(response.status.code))
            }
        } catch {
            logger.warning("meal existence check failed", metadata: ["meal_id": .string(mealId.lowercasedString), "reason": "\(error)"])
            throw APIError.unavailable("Whether this meal exists cannot be checked right now; try again shortly.")
        }
    }

    /// `GET path` on the meals service as `caller`, within `timeout`.
    private func send(_ path: String, for caller: CallerIdentity, requestId: String) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: "\(mealsURL)\(path)")
        request.headers.add(name: CallerIdentity.userIdHeader.rawName, value: caller.userId.lowercasedString)
        request.headers.add(name: CallerIdentity.sessionIdHeader.rawName, value: caller.sessionId.lowercasedString)
        request.headers.add(name: HTTPField.Name.requestId.rawName, value: requestId)
        return try await HTTPClientSpan.send(request, name: "GET meals", client: client) { request in
            try await client.execute(request, timeout: .nanoseconds(Int64(timeout.timeInterval * 1e9)))
        }
    }
}
