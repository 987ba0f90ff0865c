import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationCompat
import Synchronization

/// A local chat-completions server for photo analysis through the whole stack: it answers every request
/// with the content a test scripted (a JSON meal, or garbage) and the `usage` it scripted, or with a scripted refusal,
/// and counts the calls and keeps the last request's `Authorization` header and model. `GET /v1/models` answers the
/// model list to the keys a test accepted and, like OpenAI, 401 with OpenAI's error JSON to any other key.
final class ScriptedVisionProvider: Sendable {
    private struct State {
        var content = "{}"
        var status = 200
        var calls = 0
        var authorization: String?
        var model: String?
        var usage = (prompt: 1200, completion: 150)
        var acceptedKeys: Set<String> = []
        var modelListings = 0
    }

    private let state = Mutex(State())

    /// The message content of the next answers.
    func script(_ content: String) { state.withLock { $0.content = content } }

    /// The status of the next answers (200 answers the scripted content; anything else an OpenAI-style error).
    func answer(status: Int) { state.withLock { $0.status = status } }

    /// The `usage` the next answers report.
    func reportUsage(prompt: Int, completion: Int) { state.withLock { $0.usage = (prompt, completion) } }

    /// Lets `key` list the models (`GET /v1/models`), as a provider that issued it would.
    func accept(key: String) { state.withLock { _ = $0.acceptedKeys.insert(key) } }

    var calls: Int { state.withLock { $0.calls } }

    /// How many `GET /v1/models` requests arrived, accepted or not.
    var modelListings: Int { state.withLock { $0.modelListings } }

    /// The `Authorization` header and the model of the last request.
    var lastRequest: (authorization: String?, model: String?) { state.withLock { ($0.authorization, $0.model) } }

    /// Runs `body` with a live provider when `needed`, else with nil.
    static func runIfNeeded(_ needed: Bool, _ body: @Sendable ((provider: ScriptedVisionProvider, port: Int)?) async throws -> Void) async throws {
        guard needed else { return try await body(nil) }
        let provider = ScriptedVisionProvider()
        let router = Router()
        router.get("/v1/models") { request, context -> Response in
            let accepted = provider.state.withLock { state in
                state.modelListings += 1
                return request.headers[.authorization].map { state.acceptedKeys.contains(String($0.dropFirst("Bearer ".count))) } ?? false
            }
            let body =
                accepted
                ? #"{"object":"list","data":[{"id":"itest-vision","object":"model","created":1700000000,"owned_by":"itest"}]}"#
                : #"{"error":{"message":"Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.","#
                    + #""type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#
            return Response(
                status: accepted ? .ok : .unauthorized, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        router.post("/v1/chat/completions") { request, context -> Response in
            let body = try await request.body.collect(upTo: 32 * 1024 * 1024)
            let model = (try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any])?["model"] as? String
            let (content, status, usage) = provider.state.withLock { state in
                state.calls += 1
                state.authorization = request.headers[.authorization]
                state.model = model
                return (state.content, state.status, state.usage)
            }
            guard status == 200 else {
                let error = #"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#
                return Response(
                    status: .init(code: status), headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: error)))
            }
            let answer: [String: Any] = [
                "id": "chatcmpl-test", "object": "chat.completion", "model": "itest",
                "choices": [["index": 0, "finish_reason": "stop", "message": ["role": "assistant", "content": content]]],
                "usage": ["prompt_tokens": usage.prompt, "completion_tokens": usage.completion, "total_tokens": usage.prompt + usage.completion],
            ]
            let data = try JSONSerialization.data(withJSONObject: answer)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        try await Application(router: router).test(.live) { client in
            try await body((provider, client.port!))
        }
    }
}
