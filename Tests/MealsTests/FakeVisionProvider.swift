import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization

/// A live local chat-completions server for the vision client's tests: answers each call with the next scripted
/// reply (the last one repeats) and records every request it received. `GET /v1/models` lists a model to the keys the
/// test accepted and, as OpenAI does, answers 401 with OpenAI's error JSON to any other key.
final class FakeVisionProvider: Sendable {
    /// One canned HTTP answer, optionally after a delay.
    struct Reply: Sendable {
        var status: HTTPResponse.Status = .ok
        var body: String
        var headers: HTTPFields = [:]
        var delay: Duration = .zero

        /// A 200 chat completion whose message content is `content`, reporting `usage` (prompt and completion tokens).
        static func content(_ content: String, usage: (prompt: Int, completion: Int)? = (1000, 100)) -> Reply {
            var envelope: [String: Any] = [
                "id": "chatcmpl-test", "object": "chat.completion",
                "choices": [["index": 0, "finish_reason": "stop", "message": ["role": "assistant", "content": content]]],
            ]
            if let usage {
                envelope["usage"] = [
                    "prompt_tokens": usage.prompt, "completion_tokens": usage.completion, "total_tokens": usage.prompt + usage.completion,
                ]
            }
            return Reply(body: String(decoding: try! JSONSerialization.data(withJSONObject: envelope), as: UTF8.self))
        }

        /// A 200 chat completion whose content is `{"items": items}` as JSON, reporting `usage`.
        static func items(_ items: [[String: Any]], usage: (prompt: Int, completion: Int)? = (1000, 100)) -> Reply {
            content(String(decoding: try! JSONSerialization.data(withJSONObject: ["items": items]), as: UTF8.self), usage: usage)
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
        var acceptedKeys: Set<String>
        var modelsReply: Reply?
    }

    private let state: Mutex<State>

    private init(replies: [Reply], acceptedKeys: Set<String>) {
        state = Mutex(State(replies: replies, acceptedKeys: acceptedKeys))
    }

    /// Every request received so far, in order.
    var received: [ReceivedRequest] { state.withLock { $0.received } }

    /// How many requests reached the server.
    var calls: Int { state.withLock { $0.received.count } }

    /// Answers `GET /v1/models` with `reply` whatever the key (nil: the model list to accepted keys, 401 to others).
    func scriptModels(_ reply: Reply?) {
        state.withLock { $0.modelsReply = reply }
    }

    /// Replaces the script for the calls still to come.
    func script(_ replies: [Reply]) {
        state.withLock { $0.replies = replies }
    }

    /// Starts the server on a free loopback port and runs `body` with it and its `/v1` base URL; `acceptedKeys` may
    /// list the models.
    static func run(
        _ replies: [Reply], acceptedKeys: Set<String> = [], _ body: @Sendable (FakeVisionProvider, URL) async throws -> Void
    ) async throws {
        let fake = FakeVisionProvider(replies: replies, acceptedKeys: acceptedKeys)
        let router = Router()
        // One wildcard route per method: the router does not fall back from `/v1/models` to `**` for other `/v1` paths.
        router.get("**") { request, _ in
            request.uri.path == "/v1/models" ? try await fake.listModels(request) : Response(status: .notFound)
        }
        router.post("**") { request, _ in try await fake.answer(request) }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body(fake, URL(string: "http://127.0.0.1:\(client.port!)/v1")!)
        }
    }

    private func listModels(_ request: Request) async throws -> Response {
        let (accepted, scripted) = state.withLock { state in
            state.received.append(ReceivedRequest(path: request.uri.path, authorization: request.headers[.authorization], body: Data()))
            let accepted = request.headers[.authorization].map { state.acceptedKeys.contains(String($0.dropFirst("Bearer ".count))) } ?? false
            return (accepted, state.modelsReply)
        }
        if let scripted {
            if scripted.delay > .zero { try await Task.sleep(for: scripted.delay) }
            return Response(
                status: scripted.status, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: scripted.body)))
        }
        let body =
            accepted
            ? #"{"object":"list","data":[{"id":"gpt-4o-mini","object":"model","created":1700000000,"owned_by":"system"}]}"#
            : #"{"error":{"message":"Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.","#
                + #""type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#
        return Response(
            status: accepted ? .ok : .unauthorized, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
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
