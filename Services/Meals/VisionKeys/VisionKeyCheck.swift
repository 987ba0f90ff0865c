import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceDefaults

/// Checks a user's key with the provider before it is stored, with the one cheap call every OpenAI-compatible server
/// answers: `GET {baseURL}/models` with the key as bearer token, within the time limit of one analysis attempt and
/// without following redirects (the base URL has passed `VisionBaseURLPolicy`; where it redirects has not).
/// 2xx: accepted. 401 or 403: 422 `vision_key_invalid`. No connection, no answer in time, 429 or 5xx: 502
/// `vision_provider_unreachable`, and nothing is stored. Any other status (404 from a base URL without `/v1`, a
/// redirect): 422 `vision_base_url_unusable`. Never logs the key or the provider's answer (a refusal may echo the key).
struct VisionKeyCheck: Sendable {
    /// The `/models` list is read no further than this; its size says nothing about the key.
    static let maxAnswerBytes = 4 << 20

    let httpClient: HTTPClient
    let timeout: Duration

    /// Throws the `APIError` the user gets when the provider does not accept `key`; returns when it does.
    func verify(_ key: UserVisionKey, logger: Logger) async throws {
        var request = HTTPClientRequest(url: key.baseURL.absoluteString + "/models")
        request.method = .GET
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "Authorization", value: "Bearer \(key.apiKey)")
        let started = ContinuousClock.now
        var metadata: Logger.Metadata = ["vision.host": .string(key.baseURL.host ?? "")]
        let status: UInt
        do {
            status = try await withTimeLimit(timeout) { [httpClient, logger, request, timeout] in
                let answer = try await httpClient.execute(request, deadline: .now() + .init(timeout), logger: logger)
                // The list itself is not needed, only that the key may read it; a list too long to read is still a yes.
                _ = try? await answer.body.collect(upTo: Self.maxAnswerBytes)
                return answer.status.code
            }
        } catch  where !Task.isCancelled {
            let timedOut = error is TimeLimitExceeded || (error as? HTTPClientError) == .deadlineExceeded
            metadata["vision.error"] = .string(timedOut ? "no answer within \(timeout)" : "\(error)")
            logger.warning("vision key check: the provider could not be reached", metadata: metadata)
            throw Self.unreachable(timedOut ? "did not answer in time" : "could not be reached")
        }
        metadata["vision.status"] = "\(status)"
        metadata["vision.latency_ms"] = "\(Int((started.duration(to: .now).timeInterval * 1000).rounded()))"
        switch status {
        case 200..<300:
            logger.info("vision key check: accepted", metadata: metadata)
        case 401, 403:
            logger.info("vision key check: refused by the provider", metadata: metadata)
            throw APIError(
                .unprocessableContent, code: "vision_key_invalid",
                message: "The vision provider does not accept this API key; check it and send it again. Nothing was stored.",
                details: ["apiKey": "The provider refused this key (\(status))."])
        case 429, 500...:
            logger.warning("vision key check: the provider is unavailable", metadata: metadata)
            throw Self.unreachable("answered \(status)")
        default:
            logger.info("vision key check: unexpected answer", metadata: metadata)
            throw APIError(
                .unprocessableContent, code: "vision_base_url_unusable",
                message: "The vision provider answered \(status) to GET /models at this base URL; check the base URL (it usually ends in /v1). "
                    + "Nothing was stored.",
                details: ["baseUrl": "GET /models answered \(status) here."])
        }
    }

    private static func unreachable(_ what: String) -> APIError {
        APIError(
            .badGateway, code: "vision_provider_unreachable",
            message: "The vision provider \(what), so the key could not be checked; try again shortly. Nothing was stored.")
    }
}
