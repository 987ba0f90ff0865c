import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization

/// A local chat-completions server for photo analysis through the whole stack: it answers every request
/// with the content a test scripted (a JSON meal, or garbage) and counts the calls.
final class ScriptedVisionProvider: Sendable {
    private let state = Mutex<(content: String, calls: Int)>(("{}", 0))

    /// The message content of the next answers.
    func script(_ content: String) { state.withLock { $0.content = content } }

    var calls: Int { state.withLock { $0.calls } }

    /// Runs `body` with a live provider when `needed`, else with nil.
    static func runIfNeeded(_ needed: Bool, _ body: @Sendable ((provider: ScriptedVisionProvider, port: Int)?) async throws -> Void) async throws {
        guard needed else { return try await body(nil) }
        let provider = ScriptedVisionProvider()
        let router = Router()
        router.post("/v1/chat/completions") { request, context -> Response in
            _ = try await request.body.collect(upTo: 32 * 1024 * 1024)
            let content = provider.state.withLock { state in
                state.calls += 1
                return state.content
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
