import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization

/// A live local chat-completions server for the vision client's tests: answers each call with the next scripted
/// reply (the last one repeats) and records every request it received.
final class FakeVisionProvider: Sendable {
    /// One canned HTTP answer, optionally after a delay.
    struct Reply: Sendable {
        var status: HTTPResponse.Status = .ok
        var body: String
        var headers: HTTPFields = [:]
        var delay: Duration = .zero

        /// A 200 chat completion whose message content is `content`.
        static func content(_ content: String) -> Reply {
            let envelope: [String: Any] = [
                "id": "chatcmpl-test", "object": "chat.completion",
                "choices": [["index": 0, "finish_reason": "stop", "message": ["role": "assistant", "content": content]]],
            ]
            return Reply(body: String(decoding: try! JSONSerialization.data(withJSONObject: envelope), as: UTF8.self))
        }

        /// A 200 chat completion whose content is `{"items": items}` as JSON.
        static func items(_ items: [[String: Any]]) -> Reply {
            content(String(decoding: try! JSONSerialization.data(withJSONObject: ["items": items]), as: UTF8.self))
        }

        /// An error status with a small OpenAI-style error body.
        static func status(_ status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Reply {
            Reply(status: status, body: #"{"error":{"message":"scripted failure"}}"#, headers: headers)
        }
    }

    /// What the client sent.
    struct ReceivedRequest: Sendable {
        var path: String
        var authorization: String?
        var body: Data

        /// The body as a JSON object, for navigating in assertions.
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    private struct State {
        var replies: [Reply]
        var received: [ReceivedRequest] = []
    }

    private let state: Mutex<State>

    private init(replies: [Reply]) {
        state = Mutex(State(replies: replies))
    }

    /// Every request received so far, in order.
    var received: [ReceivedRequest] { state.withLock { $0.received } }

    /// How many requests reached the server.
    var calls: Int { state.withLock { $0.received.count } }

    /// Replaces the script for the calls still to come.
    func script(_ replies: [Reply]) {
        state.withLock { $0.replies = replies }
    }

    /// Starts the server on a free loopback port and runs `body` with it and its `/v1` base URL.
    static func run(
        _ replies: [Reply], _ body: @Sendable (FakeVisionProvider, URL) async throws -> Void
    ) async throws {
        let fake = FakeVisionProvider(replies: replies)
        let router = Router()
        router.post("**") { request, _ in try await fake.answer(request) }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body(fake, URL(string: "http://127.0.0.1:\(client.port!)/v1")!)
        }
    }

    private func answer(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 16 << 20)
        let received = ReceivedRequest(path: request.uri.path, authorization: request.headers[.authorization], body: Data(buffer: body))
        let reply = state.withLock { state in
            state.received.append(received)
            return state.replies.count > 1 ? state.replies.removeFirst() : state.replies[0]
        }
        if reply.delay > .zero { try await Task.sleep(for: reply.delay) }
        var headers = reply.headers
        headers[.contentType] = "application/json"
        return Response(status: reply.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: reply.body)))
    }
}
