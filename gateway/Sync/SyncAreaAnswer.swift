import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import ServiceDefaults
import SyncContracts

/// What an area service answered to one of the gateway's composed calls, read whole.
struct SyncAreaAnswer: Sendable {
    var area: SyncArea
    /// The name of the area's upstream, for error messages.
    var upstream: String
    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    var body: ByteBuffer

    /// The answer's body as `Value` when the area succeeded. An area's refusal (4xx) is thrown as `SyncAreaRefusal`,
    /// to be passed to the client as it came; an area failure (5xx) is 503 `upstream_unavailable` (504
    /// `upstream_timeout` when the area itself timed out), and an answer that does not read as `Value` is 502
    /// `bad_gateway`: never a partial composed answer.
    func decoded<Value: Decodable>(as type: Value.Type, context: GatewayRequestContext) throws -> Value {
        switch status.code {
        case 200..<300:
            do {
                return try SyncAreaAnswer.decoder.decode(Value.self, from: Data(buffer: body))
            } catch {
                context.logger.warning(
                    "sync area answered a body that does not match the contract",
                    metadata: ["upstream": .string(upstream), "area": .string(area.rawValue)])
                throw UpstreamClient.failed(upstream)
            }
        case 400..<500:
            throw SyncAreaRefusal(answer: self)
        case 504:
            throw UpstreamClient.timedOut(upstream)
        default:
            context.logger.warning(
                "sync area failed", metadata: ["upstream": .string(upstream), "status": .stringConvertible(status.code)])
            throw UpstreamClient.unavailable(upstream)
        }
    }

    /// Whether the area said this answer is a replay of an earlier request with the same `Idempotency-Key`.
    var isIdempotentReplay: Bool { headers.first(name: "Idempotent-Replayed") == "true" }

    /// The answer as the gateway's response, headers (but the hop-by-hop ones and the length) and body as they came.
    var response: Response {
        var fields = HTTPFields()
        for header in headers where !ProxyHeaders.hopByHop.contains(header.name.lowercased()) && header.name.lowercased() != "content-length" {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        return Response(status: .init(code: Int(status.code), reasonPhrase: status.reasonPhrase), headers: fields, body: .init(byteBuffer: body))
    }

    /// Reads the areas' JSON: timestamps with or without fractional seconds.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = RFC3339Timestamp.parse(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 time"))
            }
            return date
        }
        return decoder
    }()
}
