import BackendKit
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceDefaults

/// Photos on any meal: attach or replace (`PUT /api/meals/:id/photo`), delete (`DELETE /api/meals/:id/photo`), read
/// as the owner (`GET /api/meals/:id/photo`), and the signed, short-lived public URL that meal answers hand out
/// (`GET /media/photos/:photoId`, no bearer token), and the same for its thumbnail (`GET /media/photos/:photoId/thumbnail`).
/// Photos are stored sealed (`PhotoVault`) and opened by the store; one it cannot open is 503 `photo_unreadable`. Photo
/// writes are meal writes: `If-Match` or last-write-wins on `?modifiedAt=`, a new version, the changes feed and the
/// meal events.
struct MealPhotoController: Sendable {
    let store: any MealStore
    let reader: AnalysisRequestReader
    let photos: PhotoURLSigner
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        router.put("/api/meals/:id/photo", use: attach)
        router.delete("/api/meals/:id/photo", use: remove)
        router.get("/api/meals/:id/photo", use: ownerPhoto)
        router.get("/media/photos/:photoId", use: signedPhoto)
        router.get("/media/photos/:photoId/thumbnail", use: signedThumbnail)
    }

    /// `PUT /api/meals/:id/photo`: the image as the body (or a multipart `image` part, or JSON base64 `image`); JPEG,
    /// PNG, WebP or HEIC by its bytes, up to `MEALS_UPLOAD_MAX_BYTES`. Answers the meal with its new photo URL.
    @Sendable func attach(request: Request, context: AppRequestContext) async throws -> EditedResponse<WriteAnswer<MealBody>> {
        let caller = try CallerIdentity(request)
        let id = try MealController.mealId(context)
        let change = PhotoChange.replace(try await reader.photo(request, context: context))
        let condition = try RequestPreconditions.queryWriteCondition(request, summary: change.summary, now: now())
        return answer(try await store.changePhoto(change, of: id, userId: caller.userId, condition: condition, logger: context.logger))
    }

    /// `DELETE /api/meals/:id/photo`: the photo goes, the meal stays; answers the meal. Deleting it again changes nothing.
    @Sendable func remove(request: Request, context: AppRequestContext) async throws -> EditedResponse<WriteAnswer<MealBody>> {
        let caller = try CallerIdentity(request)
        let id = try MealController.mealId(context)
        let condition = try RequestPreconditions.queryWriteCondition(request, summary: PhotoChange.remove.summary, now: now())
        return answer(try await store.changePhoto(.remove, of: id, userId: caller.userId, condition: condition, logger: context.logger))
    }

    /// `GET /api/meals/:id/photo`: the photo as uploaded, for its owner only (the sharing service copies photos this way).
    @Sendable func ownerPhoto(request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try CallerIdentity(request)
        let id = try MealController.mealId(context)
        guard
            let photo = try await opened(logger: context.logger, { try await store.photo(mealId: id, userId: caller.userId, logger: context.logger) })
        else { throw APIError.notFound("This meal has no photo.") }
        return Self.response(photo, maxAge: 3600)
    }

    /// `GET /media/photos/:photoId?expires=&kid=&sig=`: the photo a signed URL names, until it expires. 403 when the
    /// URL is unsigned, its signature does not match or it expired; 404 when the photo was replaced or deleted.
    @Sendable func signedPhoto(request: Request, context: AppRequestContext) async throws -> Response {
        let (photoId, expiresAt) = try verified(request, context: context, thumbnail: false)
        guard let photo = try await opened(logger: context.logger, { try await store.photo(id: photoId, logger: context.logger) }) else {
            throw APIError.notFound("No such photo; it was replaced or deleted.")
        }
        return Self.response(photo, maxAge: max(0, Int(expiresAt.timeIntervalSince(now()))))
    }

    /// `GET /media/photos/:photoId/thumbnail?expires=&kid=&sig=`: the photo's JPEG thumbnail a signed `thumbnailUrl`
    /// names, until it expires. 403 as for the photo; 404 when the photo is gone or has no thumbnail.
    @Sendable func signedThumbnail(request: Request, context: AppRequestContext) async throws -> Response {
        let (photoId, expiresAt) = try verified(request, context: context, thumbnail: true)
        guard let photo = try await opened(logger: context.logger, { try await store.thumbnail(photoId: photoId, logger: context.logger) }) else {
            throw APIError.notFound("No such thumbnail; the photo was replaced or deleted, or has none.")
        }
        return Self.response(photo, maxAge: max(0, Int(expiresAt.timeIntervalSince(now()))))
    }

    /// The photo id of a signed URL and when it expires; 403 when it is unsigned, does not match or expired.
    private func verified(_ request: Request, context: AppRequestContext, thumbnail: Bool) throws -> (UUID, Date) {
        guard let text = context.parameters.get("photoId"), let photoId = UUID(uuidString: text) else {
            throw APIError.notFound("No such photo.")
        }
        let query = request.uri.queryParameters
        let verdict = photos.verify(
            photoId: photoId, thumbnail: thumbnail, expires: query["expires"].map(String.init), keyId: query["kid"].map(String.init),
            signature: query["sig"].map(String.init))
        switch verdict {
        case .unsigned:
            throw APIError(.forbidden, code: "photo_url_unsigned", message: "Photo URLs are signed; use the photoUrl of the meal.")
        case .invalid:
            throw APIError(.forbidden, code: "photo_url_invalid", message: "This photo URL is not valid; use the photoUrl of the meal.")
        case .expired:
            throw APIError(.forbidden, code: "photo_url_expired", message: "This photo URL has expired; read the meal again for a fresh one.")
        case .valid(let expiresAt):
            return (photoId, expiresAt)
        }
    }

    /// The stored photo `read` opens; 503 when its key is gone from the settings.
    private func opened(logger: Logger, _ read: () async throws -> StoredPhoto?) async throws -> StoredPhoto? {
        do {
            return try await read()
        } catch let error as SealedBytesUnreadable {
            logger.error(
                "stored photo cannot be opened; is its key missing from MEALS_PHOTO_ENCRYPTION_PREVIOUS_KEYS?",
                metadata: ["encryption_key_id": .string(error.keyId)])
            throw APIError(.serviceUnavailable, code: "photo_unreadable", message: "This photo cannot be read right now.")
        }
    }

    /// The answer to a photo write: the meal (with its photo URL) or what stopped the write.
    private func answer(_ outcome: WriteOutcome<MealRecord>) -> EditedResponse<WriteAnswer<MealBody>> {
        MealController.answer(outcome, photos: photos)
    }

    /// The photo's bytes under its stored media type; private to the browser, never sniffed, cached `maxAge` seconds.
    private static func response(_ photo: StoredPhoto, maxAge: Int) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: photo.mediaType, .cacheControl: "private, max-age=\(maxAge)", .init("X-Content-Type-Options")!: "nosniff",
                .contentSecurityPolicy: "default-src 'none'; sandbox",
            ],
            body: ResponseBody(byteBuffer: photo.bytes))
    }
}
