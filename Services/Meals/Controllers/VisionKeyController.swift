import Foundation
import Hummingbird
import ServiceDefaults

/// The user's own vision key (`/api/users/vision-key`, routed here by the gateway ahead of the rest of `/api/users`):
/// set or replace it, see what is set, delete it. A key is checked with the provider before it is stored; it is stored
/// sealed and never answered, logged or published; the user's photo analyses use it instead of the server's provider.
struct VisionKeyController: Sendable {
    let vault: VisionKeyVault
    let policy: VisionBaseURLPolicy
    let check: VisionKeyCheck

    static let apiKeyLength = 8...512
    static let modelLength = 1...100
    static let modelCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._:/@")

    func addRoutes(to router: Router<AppRequestContext>) {
        router.put("/api/users/vision-key", use: store)
        router.get("/api/users/vision-key", use: status)
        router.delete("/api/users/vision-key", use: remove)
    }

    /// `PUT /api/users/vision-key` {apiKey, baseUrl?, model?}: 200 with the key's status once the provider accepted the
    /// key (`VisionKeyCheck`). 422 naming each field that cannot be used (a base URL must be `https` and name a public
    /// host), 422 `vision_key_invalid` when the provider refuses the key, 502 `vision_provider_unreachable` when it
    /// cannot be asked; nothing is stored then, and a key stored before stays.
    @Sendable func store(request: Request, context: AppRequestContext) async throws -> VisionKeyStatusBody {
        let caller = try CallerIdentity(request)
        let body = try await request.decodeJSON(as: VisionKeyRequest.self, context: context)
        var problems: [String: String] = [:]
        let apiKey = body.apiKey ?? ""
        if !Self.apiKeyLength.contains(apiKey.count) || !apiKey.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) {
            problems["apiKey"] = "Send the provider's API key: 8 to 512 printable characters without spaces."
        }
        let model = body.model ?? UserVisionKey.defaultModel
        // ASCII only: providers name their models so, and the API document states the rule as a pattern.
        if !Self.modelLength.contains(model.count) || !model.unicodeScalars.allSatisfy({ Self.modelCharacters.contains($0) }) {
            problems["model"] = "Name the model in 1 to 100 ASCII letters, digits and - . _ : / @."
        }
        var baseURL = UserVisionKey.defaultBaseURL
        if let text = body.baseUrl {
            switch await policy.check(text) {
            case .success(let url): baseURL = url
            case .failure(let refusal): problems["baseUrl"] = "The base URL \(refusal.reason)."
            }
        }
        guard problems.isEmpty else { throw APIError.invalid(problems) }
        try vault.requireStorage()
        let key = UserVisionKey(apiKey: apiKey, baseURL: baseURL, model: model)
        try await check.verify(key, logger: context.logger)
        return try await vault.store(key, userId: caller.userId, logger: context.logger)
    }

    /// `GET /api/users/vision-key`: whether a key is set, with its base URL and model; never the key.
    @Sendable func status(request: Request, context: AppRequestContext) async throws -> VisionKeyStatusBody {
        try await vault.status(userId: try CallerIdentity(request).userId, logger: context.logger)
    }

    /// `DELETE /api/users/vision-key`: 204; the server's provider analyses the user's photos again. 204 too when none was set.
    @Sendable func remove(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        try await vault.remove(userId: try CallerIdentity(request).userId, logger: context.logger)
        return .noContent
    }
}
