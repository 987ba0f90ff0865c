import Foundation
import HTTPTypes
import ServiceDefaults
import SyncContracts
import Testing

/// One decoder path for every service, seen through the gateway: in every route family that takes a JSON body, a
/// misspelt field is 422 `unknown_field` naming it beside the field it resembles, a value of the wrong type or a missing
/// one is 422 `validation_failed` naming every offending field in the one path spelling, a `null` body names `body`, and
/// only bytes that are not JSON are 400; a method the API document does not declare for a known path is 405 with `Allow`.
/// Nothing is stored by a refused request.
@Suite("Request bodies are strict in every route family", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct RequestShapeTests {
    /// One refusal: the request, and what its answer must say.
    struct Case: Sendable, CustomStringConvertible {
        var method: HTTPRequest.Method
        var path: String
        var body: String
        var status: HTTPResponse.Status = .unprocessableContent
        var code: String
        var details: [String: String]

        var description: String { "\(method) \(path) \(body)" }
    }

    static let meal = "6f1c2a1e-0000-4000-8000-00000000aaaa"
    static let item = #"{"name":"Toast","grams":50,"calories":130,"protein":4,"carbs":24,"fat":2}"#

    /// Every family that reads a body, with a misspelt field; and the ways a body can be wrong in one shape.
    static let cases: [Case] = [
        Case(
            method: .post, path: "/api/auth/register", body: #"{"email":"shape@example.com","password":"correct horse battery","displayNmae":"X"}"#,
            code: "unknown_field", details: ["displayNmae": #"is not a known field; did you mean "displayName"?"#]),
        Case(
            method: .post, path: "/api/auth/login", body: #"{"email":"shape@example.com","pasword":"correct horse battery"}"#,
            code: "validation_failed", details: ["password": "is required", "pasword": #"is not a known field; did you mean "password"?"#]),
        Case(
            method: .post, path: "/api/auth/password-reset", body: #"{"emial":"shape@example.com"}"#, code: "validation_failed",
            details: ["email": "is required", "emial": #"is not a known field; did you mean "email"?"#]),
        Case(
            method: .put, path: "/api/users/profile", body: #"{"dailyCaloriesGoal":2000}"#, code: "unknown_field",
            details: ["dailyCaloriesGoal": #"is not a known field; did you mean "dailyCalorieGoal"?"#]),
        Case(
            method: .put, path: "/api/users/profile", body: #"{"weekStart":"someday"}"#, code: "validation_failed",
            details: ["weekStart": "must be one of monday, tuesday, wednesday, thursday, friday, saturday, sunday"]),
        Case(
            method: .put, path: "/api/auth/password", body: #"{"currentPassword":"correct horse battery","newPasword":"another one here"}"#,
            code: "validation_failed",
            details: ["newPassword": "is required", "newPasword": #"is not a known field; did you mean "newPassword"?"#]),
        Case(
            method: .post, path: "/api/meals", body: #"{"items":[{"name":"Toast","grams":50,"calories":130,"proteinGrams":4}]}"#,
            code: "unknown_field", details: ["items[0].proteinGrams": #"is not a known field; did you mean "protein"?"#]),
        Case(
            method: .post, path: "/api/meals", body: #"{"items":[{"productId":7,"grams":"ten"}],"consumed":"yes"}"#,
            code: "validation_failed",
            details: ["items[0].productId": "must be a UUID", "items[0].grams": "must be a number", "consumed": "must be true or false"]),
        Case(method: .post, path: "/api/meals", body: "null", code: "validation_failed", details: ["body": "must be an object, not null"]),
        Case(
            method: .post, path: "/api/meals", body: #"{"items": [}"#, status: .badRequest, code: "malformed_body",
            details: ["body": "is not valid JSON"]),
        Case(
            method: .put, path: "/api/meals/\(meal)", body: #"{"items":[\#(item)],"eaten_at":"2026-03-10T08:00:00Z"}"#, code: "unknown_field",
            details: ["eaten_at": #"is not a known field; did you mean "eatenAt"?"#]),
        Case(
            method: .post, path: "/api/meals/\(meal)/consume", body: #"{"note":"with jam"}"#, code: "unknown_field",
            details: ["note": #"is not a known field; did you mean "notes"?"#]),
        Case(
            method: .post, path: "/api/custom-meals", body: #"{"name":"Toast","items":[\#(item)],"mealtype":"breakfast"}"#, code: "unknown_field",
            details: ["mealtype": #"is not a known field; did you mean "mealType"?"#]),
        Case(
            method: .post, path: "/api/analyze", body: #"{"txt":"two eggs"}"#, code: "unknown_field",
            details: ["txt": #"is not a known field; did you mean "text"?"#]),
        Case(
            method: .put, path: "/api/users/vision-key", body: #"{"apikey":"sk-test"}"#, code: "unknown_field",
            details: ["apikey": #"is not a known field; did you mean "apiKey"?"#]),
        Case(
            method: .post, path: "/api/metrics/weight", body: #"{"weight":70,"unti":"kg"}"#, code: "unknown_field",
            details: ["unti": #"is not a known field; did you mean "unit"?"#]),
        Case(
            method: .post, path: "/api/metrics/ketones", body: #"{"levle":1.2}"#, code: "validation_failed",
            details: ["level": "is required", "levle": #"is not a known field; did you mean "level"?"#]),
        Case(
            method: .post, path: "/api/metrics/water", body: #"{"millilitre":250}"#, code: "validation_failed",
            details: ["millilitres": "is required", "millilitre": #"is not a known field; did you mean "millilitres"?"#]),
        Case(
            method: .post, path: "/api/share/meal/\(meal)", body: #"{"expiresInDay":3}"#, code: "unknown_field",
            details: ["expiresInDay": #"is not a known field; did you mean "expiresInDays"?"#]),
        Case(
            method: .post, path: "/api/sync/import", body: #"{"meal":[]}"#, code: "unknown_field",
            details: ["meal": #"is not a known field; did you mean "meals"?"#]),
    ]

    @Test("every family answers a body it cannot take in the one shape, and stores nothing")
    func refusals() async throws {
        try await FullStack.run(start: Date(timeIntervalSince1970: 1_773_154_800)) { stack in
            let user = try await stack.signUp("Shape")
            for refusal in Self.cases {
                let response = try await stack.gateway.call(refusal.method, refusal.path, json: refusal.body, token: user.token)
                #expect(response.status == refusal.status, "\(refusal) answered \(response.status): \(String(buffer: response.body))")
                let error = try response.decoded(ErrorBody.self).error
                #expect(error.code == refusal.code && error.details == refusal.details, "\(refusal): \(error.code) \(error.details)")
            }
            // A method the document does not declare for a known path is 405 naming the ones it does.
            let patch = try await stack.gateway.call(.patch, "/api/meals/\(Self.meal)", json: "{}", token: user.token)
            #expect(patch.status == .methodNotAllowed && patch.headers[.allow] == "DELETE, GET, PUT", "\(patch.status) \(patch.headers)")
            #expect(try patch.decoded(ErrorBody.self).error.code == "method_not_allowed")

            // Nothing of the refused writes was stored.
            #expect(try await stack.gateway.call(.get, "/api/meals/\(Self.meal)", token: user.token).status == .notFound)
            let meals = try await stack.expect(.ok, .get, "/api/meals", token: user.token)
            #expect(String(buffer: meals.body).contains(#""meals":[]"#), "a refused meal was stored: \(String(buffer: meals.body))")

            // An import rejects the misspelt item alone, in the same shape, and stores the other one.
            let good = #"{"id":"6f1c2a1e-0000-4000-8000-00000000bbbb","items":[\#(Self.item)]}"#
            let misspelt = #"{"id":"6f1c2a1e-0000-4000-8000-00000000cccc","items":[\#(Self.item)],"mealTyp":"lunch"}"#
            let imported = try await stack.expect(
                .ok, .post, "/api/sync/import", json: #"{"meals":[\#(good),\#(misspelt)]}"#, token: user.token
            ).decoded(SyncImportResponse.self)
            #expect(imported.results.map(\.status) == [.created, .rejected])
            #expect(imported.results[1].error?.code == "unknown_field")
            #expect(imported.results[1].error?.details == ["mealTyp": #"is not a known field; did you mean "mealType"?"#])
        }
    }
}
