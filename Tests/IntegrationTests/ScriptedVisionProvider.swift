import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationCompat
import Synchronization

/// A local chat-completions server for photo analysis through the whole stack: it answers every request
/// with the content a test scripted (a JSON meal, or garbage), or with a scripted refusal, and counts the calls and
/// keeps the last request's `Authorization` header and model.
final class ScriptedVisionProvider: Sendable {
    private struct State {
        var content = "{}"
        var status = 200
        var calls = 0
        var authorization: String?
        var model: String?
    }

    private let state = Mutex(State())

    /// The message content of the next answers.
    func script(_ content: String) { state.withLock { $0.content = content } }

    /// The status of the next answers (200 answers the scripted content; anything else an OpenAI-style error).
    func answer(status: Int) { state.withLock { $0.status = status } }

    var calls: Int { state.withLock { $0.calls } }

    /// The `Authorization` header and the model of the last request.
    var lastRequest: (authorization: String?, model: String?) { state.withLock { ($0.authorization, $0.model) } }

    /// Runs `body` with a live provider when `needed`, else with nil.
    static func runIfNeeded(_ needed: Bool, _ body: @Sendable ((provider: ScriptedVisionProvider, port: Int)?) async throws -> Void) async throws {
        guard needed else { return try await body(nil) }
        let provider = ScriptedVisionProvider()
        let router = Router()
        router.post("/v1/chat/completions") { request, context -> Response in
            let body = try await request.body.collect(upTo: 32 * 1024 * 1024)
            let model = (try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any])?["model"] as? String
            let (content, status) = provider.state.withLock { state in
                state.calls += 1
                state.authorization = request.headers[.authorization]
                state.model = model
                return (state.content, state.status)
            }
            guard status == 200 else {
                let error = #"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#
                return Response(
                    status: .init(code: status), headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: error)))
            }
            let answer: [String: Any] = [
                "id": "chatcmpl-test", "object": "chat.completion", "model": "itest",
                "choices": [["index": 0, "finish_reason": "stop", "message": ["role": "assistant", "content": content]]],
            ]
            let data = try JSONSerialization.data(withJSONObject: answer)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        try await Application(router: router).test(.live) { client in
            try await body((provider, client.port!))
        }
    }
}
