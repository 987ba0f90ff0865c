import AsyncHTTPClient
import Foundation
import HTTPTypes
import Logging
import NIOCore
import ServiceDefaults
import WireJSON

/// Where a shared meal's photo is copied from when its owner shares it with the photo: the meals service
/// (`MealPhotoClient`); router tests use a stand-in.
protocol MealPhotoSource: Sendable {
    /// The meal's photo; nil when the meals service has none for this caller. 503 when it cannot be reached.
    func photo(mealId: UUID, for caller: CallerIdentity, requestId: String, logger: Logger) async throws -> MealPhoto?
}

/// The one internal HTTP call of the sharing service: when an owner shares a meal with its photo, the photo is
/// fetched once from the meals service's `GET /api/meals/:id/photo` on the owner's behalf (the meals service
/// checks ownership again) and copied, so public views never reach the meals service. The call carries the share
/// request's `X-Request-Id` and, while tracing is on, its trace (`traceparent`), so the meals service's logs and span
/// join the request that caused it. A failure is logged to the share request's `logger`.
struct MealPhotoClient: MealPhotoSource {
    let client: HTTPClient
    let mealsURL: String
    let timeout: Duration
    let maxBytes: Int

    /// The meal's photo; nil when the meals service has none for this caller. 503 when it cannot be reached.
    func photo(mealId: UUID, for caller: CallerIdentity, requestId: String, logger: Logger) async throws -> MealPhoto? {
        var request = HTTPClientRequest(url: "\(mealsURL)/api/meals/\(mealId.lowercasedString)/photo")
        request.headers.add(name: CallerIdentity.userIdHeader.rawName, value: caller.userId.lowercasedString)
        request.headers.add(name: CallerIdentity.sessionIdHeader.rawName, value: caller.sessionId.lowercasedString)
        request.headers.add(name: HTTPField.Name.requestId.rawName, value: requestId)
        do {
            let response = try await HTTPClientSpan.send(request, name: "GET meals", client: client) { request in
                try await client.execute(request, timeout: .nanoseconds(Int64(timeout.timeInterval * 1e9)))
            }
            switch response.status.code {
            case 200:
                let mediaType = response.headers.first(name: "content-type") ?? "application/octet-stream"
                guard mediaType.hasPrefix("image/") else { throw PhotoFetchError.notAnImage }
                return MealPhoto(mediaType: mediaType, bytes: try await response.body.collect(upTo: maxBytes))
            case 404:
                return nil
            default:
                throw PhotoFetchError.status(Int(response.status.code))
            }
        } catch {
            logger.warning("meal photo fetch failed", metadata: ["meal_id": .string(mealId.lowercasedString), "reason": "\(error)"])
            throw APIError.unavailable("The meal's photo cannot be copied right now; try again shortly or share without the photo.")
        }
    }
}

/// Why the meals service's answer could not be used.
enum PhotoFetchError: Error {
    case notAnImage
    case status(Int)
}
