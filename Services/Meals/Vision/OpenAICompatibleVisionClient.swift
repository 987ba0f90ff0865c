import AsyncHTTPClient
import Foundation
import Logging
import Metrics
import NIOCore
import NIOFoundationCompat
import ServiceDefaults
import WireJSON

/// Asks an OpenAI-compatible chat-completions endpoint (OpenAI, Gemini, Ollama, vLLM) what is on a meal photo, or what
/// a nutrition label says: one strict-JSON request per attempt, a time limit per attempt, bounded retries with jittered exponential
/// backoff, and a circuit breaker around the whole so a provider that is down is not asked again and again (opened
/// for everyone only by failures of several users, see `CircuitBreaker`).
/// Logs model, status, attempt and latency; never the API key, the photo or the model's text. Times each attempt in
/// `vision_request_duration_seconds` by outcome (`ok`, `no_food`, `unusable`, `unavailable`, `refused`, `timeout`,
/// `unreachable`).
final class OpenAICompatibleVisionClient: VisionProvider {
    /// Answers larger than this are not read: a meal's items are a few kilobytes.
    static let maxAnswerBytes = 1 << 20
    /// A `Retry-After` up to this long is waited out; a longer one ends the retries, as the user is waiting.
    static let maxRetryAfter = Duration.seconds(10)

    /// A retry with less time than this left before `totalTimeout` is not worth starting.
    static let minimumAttempt = Duration.milliseconds(100)

    let settings: VisionSettings
    private let httpClient: HTTPClient
    private let logger: Logger
    private let breaker: CircuitBreaker
    private let endpoint: String
    private let metrics: any MetricsFactory
    private let keyOwner: String

    /// A client for `settings`; `now` is the breaker's clock and `metrics` where its figures go, injectable for tests.
    /// `keyOwner` names whose key it uses (`server`, or `user` for a user's own key) in `vision_request_duration_seconds`;
    /// only the server's breaker is the `vision_breaker_state` gauge (users' breakers are their own, not exported one
    /// by one).
    init(
        settings: VisionSettings, httpClient: HTTPClient, logger: Logger, keyOwner: String = "server",
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }, metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.settings = settings
        self.httpClient = httpClient
        self.logger = logger
        self.metrics = metrics
        self.keyOwner = keyOwner
        breaker = CircuitBreaker(
            failureThreshold: settings.failureThreshold, minimumUsers: settings.breakerUsers, window: settings.breakerWindow,
            userFailureThreshold: settings.userFailureThreshold, openDuration: settings.openDuration, now: now,
            metrics: keyOwner == "server" ? metrics : NOOPMetricsHandler.instance)
        endpoint = settings.baseURL.absoluteString + "/chat/completions"
    }

    var model: String { settings.model }

    /// The items on `photo`; throws `VisionError` (`circuitOpen` at once, without a request, while the breaker is open
    /// or holds `caller` back). Every answer with a 2xx status is counted in `tally` with the `usage` it reports.
    func recognise(_ photo: PhotoUpload, hint: String?, caller: UUID, tally: TokenTally = TokenTally()) async throws -> [RecognisedItem] {
        let maxItems = settings.maxItems
        return try await ask(
            MealItemsPrompt.request(photo: photo, hint: hint, model: settings.model), task: "meal_items", caller: caller, tally: tally
        ) {
            try MealItemsAnswer.items(fromJSON: $0, maxItems: maxItems)
        }
    }

    /// The nutrition label on `photo`, as `recognise` asks for items: the same retries, breaker and counting.
    func readLabel(_ photo: PhotoUpload, hint: String?, caller: UUID, tally: TokenTally = TokenTally()) async throws -> LabelReading {
        try await ask(
            NutritionLabelPrompt.request(photo: photo, hint: hint, model: settings.model), task: "nutrition_label", caller: caller, tally: tally
        ) {
            try NutritionLabelAnswer.reading(fromJSON: $0)
        }
    }

    /// Sends `request` through the breaker with retries and reads the model's JSON content with `read`; `task` names
    /// the question in the logs.
    private func ask<Answer: Sendable>(
        _ request: ChatCompletionRequest, task: String, caller: UUID, tally: TokenTally, read: @escaping @Sendable (String) throws -> Answer
    ) async throws -> Answer {
        let body = ByteBuffer(data: try WireJSONEncoder().encode(request))
        let question = Question(body: body, task: task, read: read)
        return try await breaker.run(for: caller) { try await askWithRetries(question, tally: tally) }
    }

    /// One question's encoded request, its name for the logs, and how its answer is read.
    private struct Question<Answer: Sendable>: Sendable {
        var body: ByteBuffer
        var task: String
        var read: @Sendable (String) throws -> Answer
    }

    /// A failed attempt that another attempt may fix: no connection, a timeout, 429 or 5xx.
    private struct RetryableFailure: Error {
        var reason: String
        var retryAfter: Duration?
    }

    private func askWithRetries<Answer>(_ question: Question<Answer>, tally: TokenTally) async throws -> Answer {
        let deadline = ContinuousClock.now + settings.totalTimeout
        var backoff = Backoff(initial: settings.initialBackoff, maximum: settings.initialBackoff * 16)
        var attempt = 1
        while true {
            do {
                let limit = min(settings.requestTimeout, ContinuousClock.now.duration(to: deadline))
                return try await self.attempt(attempt, limit: limit, question: question, tally: tally)
            } catch let failure as RetryableFailure {
                guard attempt < settings.maxAttempts else {
                    throw VisionError.failed("\(failure.reason) (after \(attempt) attempts)")
                }
                if let retryAfter = failure.retryAfter, retryAfter > Self.maxRetryAfter {
                    throw VisionError.failed("\(failure.reason); the provider asks to wait \(retryAfter)")
                }
                let wait = failure.retryAfter ?? backoff.next()
                guard ContinuousClock.now + wait + Self.minimumAttempt < deadline else {
                    throw VisionError.failed("\(failure.reason) (after \(attempt) attempts, out of time)")
                }
                try await Task.sleep(for: wait)
                attempt += 1
            }
        }
    }

    /// One request, answer read within `limit`; throws `RetryableFailure` when another attempt may succeed.
    private func attempt<Answer>(_ number: Int, limit: Duration, question: Question<Answer>, tally: TokenTally) async throws -> Answer {
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        if let key = settings.apiKey { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        request.body = .bytes(question.body)
        var metadata: Logger.Metadata = [
            "vision.model": .string(settings.model), "vision.task": .string(question.task), "vision.attempt": "\(number)",
        ]
        let started = ContinuousClock.now
        let response: (status: UInt, retryAfter: String?, body: ByteBuffer)
        do {
            response = try await withTimeLimit(limit) { [httpClient, logger, request] in
                let answer = try await httpClient.execute(request, deadline: .now() + .init(limit), logger: logger)
                let body = try await answer.body.collect(upTo: Self.maxAnswerBytes)
                return (answer.status.code, answer.headers.first(name: "Retry-After"), body)
            }
        } catch is NIOTooManyBytesError {
            recordDuration(since: started, outcome: "unusable")
            throw VisionError.malformedAnswer("the answer is larger than \(Self.maxAnswerBytes) bytes")
        } catch  where !Task.isCancelled {
            let timedOut = error is TimeLimitExceeded || (error as? HTTPClientError) == .deadlineExceeded
            let reason = timedOut ? "no answer within \(limit)" : "the provider could not be reached (\(error))"
            recordDuration(since: started, outcome: timedOut ? "timeout" : "unreachable")
            metadata["vision.latency_ms"] = "\(Self.milliseconds(since: started))"
            metadata["vision.error"] = .string(reason)
            logger.warning("vision request failed", metadata: metadata)
            throw RetryableFailure(reason: reason)
        }
        metadata["vision.status"] = "\(response.status)"
        metadata["vision.latency_ms"] = "\(Self.milliseconds(since: started))"
        switch response.status {
        case 200..<300:
            let data = Data(buffer: response.body)
            // Counted before reading the answer: one naming no food cost its tokens all the same.
            tally.add(ChatCompletionAnswer.usage(of: data))
            do {
                let content = try ChatCompletionAnswer.jsonContent(of: data)
                let answer = try question.read(content)
                logger.info("vision answer", metadata: metadata)
                recordDuration(since: started, outcome: "ok")
                return answer
            } catch let error as VisionError {
                metadata["vision.error"] = "\(error)"
                if error.saysProviderIsUnwell {
                    recordDuration(since: started, outcome: "unusable")
                    logger.warning("vision answer unusable", metadata: metadata)
                } else {
                    recordDuration(since: started, outcome: "no_food")
                    logger.info("vision answer names no plausible food or label", metadata: metadata)
                }
                throw error
            }
        case 429, 500...:
            recordDuration(since: started, outcome: "unavailable")
            logger.warning("vision provider unavailable", metadata: metadata)
            let retryAfter = response.retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            throw RetryableFailure(reason: "the provider answered \(response.status)", retryAfter: retryAfter.map { .seconds(max(0, $0)) })
        case 401, 403:
            recordDuration(since: started, outcome: "refused")
            logger.error("vision request refused: the provider does not accept the API key", metadata: metadata)
            throw VisionError.credentialsRefused
        default:
            recordDuration(since: started, outcome: "refused")
            metadata["vision.provider_message"] = .string(providerMessage(status: response.status, body: response.body))
            logger.error("vision request refused", metadata: metadata)
            throw VisionError.failed("the provider refused the request with \(response.status)")
        }
    }

    /// The start of a refusal's body: what an operator needs for a wrong model name or an unsupported image.
    /// (401 and 403, whose bodies may echo part of the key, never get here), and the key is masked.
    private func providerMessage(status: UInt, body: ByteBuffer) -> String {
        let text = String(buffer: body)
        let masked = settings.apiKey.map { text.replacingOccurrences(of: $0, with: "***") } ?? text
        return String(masked.prefix(300))
    }

    /// One attempt's time to its answer (or to giving up on it), by what came of it.
    private func recordDuration(since started: ContinuousClock.Instant, outcome: String) {
        Metrics.Timer(
            label: "vision_request_duration_seconds", dimensions: [("outcome", outcome), ("key", keyOwner)], preferredDisplayUnit: .seconds,
            factory: metrics
        )
        .record(duration: started.duration(to: .now))
    }

    private static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        Int((start.duration(to: .now).timeInterval * 1000).rounded())
    }
}
