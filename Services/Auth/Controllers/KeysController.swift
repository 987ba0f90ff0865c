import Foundation
import Hummingbird
import WireJSON

/// `GET /.well-known/jwks.json`: the public keys that verify access tokens, for the gateway and any service.
struct KeysController: Sendable {
    let document: ByteBuffer

    init(keys: SigningKeys) throws {
        let encoder = WireJSONEncoder()
        encoder.outputFormatting = .sortedKeys
        document = ByteBuffer(bytes: try encoder.encode(keys.jwks))
    }

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/.well-known/jwks.json") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/jwk-set+json", .cacheControl: "public, max-age=300"],
                body: .init(byteBuffer: document))
        }
    }
}
