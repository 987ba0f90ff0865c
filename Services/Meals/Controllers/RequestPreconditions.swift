import Foundation
import Hummingbird
import NIOCore
import ServiceDefaults
import SyncContracts

/// What meal and custom-meal routes read before acting: the `:id` of the resource and the `If-Match` version.
enum RequestPreconditions {
    /// The `:id` path parameter; 422 for anything that is not a UUID.
    static func resourceId(_ context: AppRequestContext) throws -> UUID {
        try context.parameters.uuid("id")
    }

    /// 409 `version_conflict` when the client's `expected` version is not the `current` one of `resource`.
    static func requireVersion(_ expected: Int?, current: Int, of resource: String) throws {
        guard let expected, expected != current else { return }
        throw APIError(
            .conflict, code: "version_conflict",
            message: "The \(resource) changed since you read it (version \(current), you sent \(expected)); reload and retry.",
            details: ["currentVersion": String(current)])
    }

    /// The request's body, read once so that it can be both decoded and stamped.
    static func rawBody(_ request: inout Request, context: AppRequestContext) async throws -> ByteBuffer {
        try await request.collectBody(upTo: context.maxUploadSize)
    }

    /// How a write settles with what is stored: `If-Match` when sent (strict), otherwise last-write-wins on the
    /// stamp of `modifiedAt` (the server's time without one) and the body's bytes.
    static func writeCondition(_ request: Request, body: ByteBuffer, modifiedAt: String?, now: Date) throws -> WriteCondition {
        if let version = try request.ifMatchVersion() { return .ifMatch(version) }
        let stamp = try WriteStamp.of(modifiedAt: modifiedAt, body: body.readableBytesView, now: now)
        return .lastWriteWins(stamp, body: body, serverTime: modifiedAt == nil)
    }

    /// How a write without a JSON body (a photo, unconsuming) settles: `If-Match` when sent, otherwise last-write-wins
    /// on `?modifiedAt=` (the server's time without it). `summary`, a JSON description of the write, stands for its
    /// body in the stamp's tiebreak and in a recorded conflict.
    static func queryWriteCondition(_ request: Request, summary: String, now: Date) throws -> WriteCondition {
        if let version = try request.ifMatchVersion() { return .ifMatch(version) }
        let modifiedAt = request.uri.queryParameters["modifiedAt"].map(String.init)
        let stamp = try WriteStamp.of(modifiedAt: modifiedAt, body: Array(summary.utf8), now: now)
        return .lastWriteWins(stamp, body: ByteBuffer(string: summary), serverTime: modifiedAt == nil)
    }

    /// The stamp of a deletion: `?modifiedAt=` (ISO 8601) or the server's time.
    static func deletionStamp(_ request: Request, now: Date) throws -> WriteStamp {
        try WriteStamp.of(modifiedAt: request.uri.queryParameters["modifiedAt"].map(String.init), body: [], now: now)
    }
}
