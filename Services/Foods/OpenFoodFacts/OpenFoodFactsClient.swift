import AsyncHTTPClient
import FoodData
import Foundation
import Logging
import Metrics
import NIOCore
import ServiceDefaults

/// Where the foods service looks up a barcode it does not have (`OpenFoodFactsClient`; a scripted one in router tests).
protocol ProductSource: Sendable {
    /// What the source says about `gtin`: its product, or that it has none. Throws `ProductSourceUnavailable` when it
    /// could not say (unreachable, slow, refusing, answering garbage, or our request budget spent).
    func product(_ gtin: GTIN, logger: Logger) async throws -> OpenFoodFactsDocument.Reading
}

/// The source could not answer; nothing may be concluded (or cached) from it.
struct ProductSourceUnavailable: Error, Equatable {
    var reason: String
    /// When asking again makes sense.
    var retryAfter: Duration
    /// `unavailable`, or `budgetExhausted` when the requests allowed were spent (ours, or the source's 429).
    var cause: ExternalLookup = .unavailable
}

/// Open Food Facts' API v2 product endpoint, spoken to as its documentation asks: `GET /api/v2/product/<code>` with
/// only the fields read, a `User-Agent` naming the app and a contact, within a per-process request budget. One
/// look-up makes at most two attempts (no connection, timeouts, 429 without a long `Retry-After`, 5xx), all within
/// `totalTimeout`; failed look-ups in a row open a breaker. Counted in `openfoodfacts_requests_total` by outcome
/// (`found`, `not_found`, `failed`, `budget_spent`, `breaker_open`).
struct OpenFoodFactsClient: ProductSource {
    let settings: OpenFoodFactsSettings
    let httpClient: HTTPClient
    let budget: RequestBudget
    let breaker: ConsecutiveFailureBreaker

    /// The largest answer read; OFF's product documents with the fields asked are a few kilobytes.
    static let maxAnswerBytes = 1 << 20
    static let attempts = 2

    init(settings: OpenFoodFactsSettings, httpClient: HTTPClient) {
        self.settings = settings
        self.httpClient = httpClient
        budget = RequestBudget(perMinute: settings.requestsPerMinute)
        breaker = ConsecutiveFailureBreaker(name: "openfoodfacts", failureThreshold: settings.breakerFailures, openDuration: settings.breakerOpen)
    }

    func product(_ gtin: GTIN, logger: Logger) async throws -> OpenFoodFactsDocument.Reading {
        if let wait = breaker.admit() {
            Self.count("breaker_open")
            throw ProductSourceUnavailable(reason: "Open Food Facts failed repeatedly; not asked for a while", retryAfter: wait)
        }
        do {
            let reading = try await lookUp(gtin, logger: logger)
            breaker.succeeded()
            Self.count(reading == .notFound ? "not_found" : "found")
            return reading
        } catch let unavailable as ProductSourceUnavailable {
            breaker.failed()
            Self.count("failed")
            throw unavailable
        } catch let spent as BudgetSpent {
            breaker.abandoned()
            Self.count("budget_spent")
            throw ProductSourceUnavailable(
                reason: "this server's Open Food Facts request budget is spent for now", retryAfter: spent.retryAfter, cause: .budgetExhausted)
        } catch {
            breaker.abandoned()
            throw error
        }
    }

    private struct BudgetSpent: Error {
        var retryAfter: Duration
    }

    private func lookUp(_ gtin: GTIN, logger: Logger) async throws -> OpenFoodFactsDocument.Reading {
        let deadline = ContinuousClock.now + settings.totalTimeout
        var lastProblem = "no attempt made"
        var lastCause = ExternalLookup.unavailable
        for attempt in 1...Self.attempts {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .milliseconds(50) else { break }
            guard budget.take() else { throw BudgetSpent(retryAfter: .seconds(budget.secondsUntilNext)) }
            do {
                return try await self.attempt(gtin, limit: min(settings.attemptTimeout, left), logger: logger)
            } catch let failure as AttemptFailure {
                lastProblem = failure.reason
                lastCause = failure.cause
                logger.warning(
                    "Open Food Facts look-up failed",
                    metadata: ["off.attempt": "\(attempt)", "off.error": .string(failure.reason), "off.code": .string(gtin.openFoodFactsCode)])
                if let retryAfter = failure.retryAfter, ContinuousClock.now + retryAfter > deadline {
                    throw ProductSourceUnavailable(reason: failure.reason, retryAfter: max(retryAfter, .seconds(1)), cause: failure.cause)
                }
                guard failure.retryable else { break }
                if let retryAfter = failure.retryAfter { try await Task.sleep(for: retryAfter) }
            }
        }
        // A look-up cut off by its time limit says nothing about the product: `unavailable`, like no answer at all.
        throw ProductSourceUnavailable(reason: lastProblem, retryAfter: .seconds(5), cause: lastCause)
    }

    /// A failed attempt: whether another may help, how long OFF asked us to wait, and whether it refused for our rate.
    private struct AttemptFailure: Error {
        var reason: String
        var retryable: Bool
        var retryAfter: Duration?
        var cause = ExternalLookup.unavailable
    }

    private func attempt(_ gtin: GTIN, limit: Duration, logger: Logger) async throws -> OpenFoodFactsDocument.Reading {
        var request = HTTPClientRequest(url: url(for: gtin))
        request.headers.add(name: "User-Agent", value: settings.userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        let answer: (status: UInt, retryAfter: String?, body: ByteBuffer)
        do {
            answer = try await withTimeLimit(limit) { [httpClient, logger, request] in
                let response = try await httpClient.execute(request, deadline: .now() + .init(limit), logger: logger)
                let body = try await response.body.collect(upTo: Self.maxAnswerBytes)
                return (response.status.code, response.headers.first(name: "Retry-After"), body)
            }
        } catch  where !Task.isCancelled {
            let timedOut = error is TimeLimitExceeded || (error as? HTTPClientError) == .deadlineExceeded
            throw AttemptFailure(reason: timedOut ? "no answer within \(limit)" : "not reachable (\(error))", retryable: true)
        }
        switch answer.status {
        case 200, 404:
            // OFF answers an unknown code with 404 and its JSON (`status` 0); some mirrors with 200 and `status` 0.
            do {
                return try OpenFoodFactsDocument.read(Data(buffer: answer.body))
            } catch {
                throw AttemptFailure(reason: "answered \(answer.status) with a body that is not a product document", retryable: false)
            }
        case 300..<400:
            // OFF redirects a code that belongs to a sister database (Open Beauty Facts, ...): no food here.
            return .notFound
        case 429:
            let wait = answer.retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { Duration.seconds(max(1, $0)) }
            throw AttemptFailure(
                reason: "answered 429 (too many requests)", retryable: true, retryAfter: wait ?? .seconds(60), cause: .budgetExhausted)
        case 500..<600:
            throw AttemptFailure(reason: "answered \(answer.status)", retryable: true)
        default:
            throw AttemptFailure(reason: "answered \(answer.status)", retryable: false)
        }
    }

    private func url(for gtin: GTIN) -> String {
        "\(settings.baseURL.absoluteString)/api/v2/product/\(gtin.openFoodFactsCode)?fields=\(OpenFoodFactsDocument.fields.joined(separator: ","))"
    }

    private static func count(_ outcome: String) {
        Counter(label: "openfoodfacts_requests_total", dimensions: [("outcome", outcome)]).increment()
    }
}

extension GTIN {
    /// The code as Open Food Facts keys its products: the GTIN-14 without its leading zeros down to 13 digits (so
    /// UPC-A is EAN-13 with a leading 0), and an EAN-8 as its 8 digits.
    var openFoodFactsCode: String {
        if digits.hasPrefix("000000") { return String(digits.dropFirst(6)) }
        return digits.hasPrefix("0") ? String(digits.dropFirst()) : digits
    }
}
