import ContractTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresSupport
import Testing

/// `GET /api/export` through the gateway against every service: what each section holds, that nothing secret and
/// nothing of another user is in it, the zip of CSV files, and the `export` rate limit.
@Suite("Data export through the gateway", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct DataExportTests {
    /// A user with a record of every kind the export covers; returns the ids the checks look for.
    struct Recorded {
        var user: JourneyUser
        var mealIds: [String]
        var itemCount: Int
        var shareToken: String
    }

    static func recordEverything(_ stack: FullStack) async throws -> Recorded {
        let user = try await stack.signUp("Ada")
        try await stack.expect(.ok, .put, "/api/users/profile", json: #"{"dailyCalorieGoal":1800,"proteinGoalGrams":120}"#, token: user.token)
        let item = TrendsPipelineTests.item(calories: 350)
        // A title a spreadsheet would run as a formula, with a comma and quotes for the CSV quoting.
        let porridge = try await stack.expect(
            .created, .post, "/api/meals",
            json: #"{"title":"=2+3 porridge, \"oats\"","items":[\#(item),\#(item)],"tags":["Breakfast","home"]}"#, token: user.token
        ).decoded(MealAnswer.self)
        let synced = UUID().uuidString.lowercased()
        try await stack.expect(
            .created, .put, "/api/meals/\(synced)",
            json: OfflineSyncJourneyTests.meal(calories: 500, eatenAt: "2026-03-10T07:30:00Z", modifiedAt: "2026-03-10T07:45:00Z"),
            token: user.token)
        // An older device's edit loses to the stored state: a sync conflict.
        let stale = try await stack.expect(
            .ok, .put, "/api/meals/\(synced)", json: #"{"notes":"from an old phone","modifiedAt":"2026-03-10T07:00:00Z"}"#,
            token: user.token
        ).decoded(OfflineSyncJourneyTests.WriteAnswer.self)
        #expect(stale.conflict == "stale_write_ignored")
        try await stack.expect(.created, .post, "/api/custom-meals", json: #"{"name":"Usual lunch","items":[\#(item)]}"#, token: user.token)
        try await stack.expect(.created, .post, "/api/metrics/weight", json: #"{"date":"2026-03-09","weight":72.5}"#, token: user.token)
        try await stack.expect(.created, .post, "/api/metrics/weight", json: #"{"date":"2026-03-10","weight":72.1}"#, token: user.token)
        let link = try await stack.gateway.shareWhenReady(porridge.id, json: "{}", token: user.token)
        #expect(link.status == .created, "share answered \(link.status): \(String(buffer: link.body))")
        let shareToken = try link.decoded(LinkAnswer.self).token
        // The goal history is trends' read model of user.profile_updated: wait until it has the goals.
        _ = try await TestEnvironment.eventually(timeout: .seconds(30)) {
            let rows = try await stack.databases["trends"]!.query(
                "SELECT count(*) FROM goal_history WHERE user_id = \(user.id) AND daily_calorie_goal = 1800", logger: TestEnvironment.logger)
            for try await count in rows.decode(Int.self) where count > 0 { return true }
            return false
        }
        return Recorded(user: user, mealIds: [porridge.id.uuidString.lowercased(), synced], itemCount: 3, shareToken: shareToken)
    }

    /// The JSON export of `token`, checked for status and headers, as a dictionary.
    static func jsonExport(_ stack: FullStack, token: String) async throws -> (text: String, document: [String: Any]) {
        let response = try await stack.expect(.ok, .get, "/api/export?format=json", token: token)
        #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
        let disposition = response.headers[.contentDisposition] ?? ""
        #expect(disposition.hasPrefix("attachment; filename=\"nutritionai-export-") && disposition.hasSuffix(".json\""), "\(disposition)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
        return (String(buffer: response.body), document)
    }

    static func section(_ document: [String: Any], _ part: String, _ key: String) -> [[String: Any]] {
        (document[part] as? [String: Any])?[key] as? [[String: Any]] ?? []
    }

    @Test("JSON: every section holds the caller's records, nothing secret, nothing of another user; a new user's export is valid and empty")
    func jsonExport() async throws {
        try await FullStack.run(start: OfflineSyncJourneyTests.start) { stack in
            let recorded = try await Self.recordEverything(stack)
            let other = try await stack.signUp("Bo")
            let soup = try await stack.logMeal("Bo's secret soup", calories: 300, token: other.token)
            try await stack.expect(.created, .post, "/api/metrics/weight", json: #"{"weight":90.5}"#, token: other.token)

            let (text, document) = try await Self.jsonExport(stack, token: recorded.user.token)
            #expect(document["format"] as? Int == 1 && document["exportedAt"] is String)
            let account = try #require((document["account"] as? [String: Any])?["account"] as? [String: Any])
            #expect(account["email"] as? String == recorded.user.email && account["id"] as? String == recorded.user.idPath)
            let profile = try #require((document["account"] as? [String: Any])?["profile"] as? [String: Any])
            #expect(profile["dailyCalorieGoal"] as? Int == 1800 && profile["displayName"] as? String == "Ada")
            #expect(!Self.section(document, "account", "sessions").isEmpty)
            let meals = Self.section(document, "meals", "meals")
            #expect(Set(meals.compactMap { $0["id"] as? String }) == Set(recorded.mealIds))
            #expect(meals.reduce(0) { $0 + (($1["items"] as? [Any])?.count ?? 0) } == recorded.itemCount)
            #expect(meals.contains { ($0["tags"] as? [String]) == ["breakfast", "home"] && ($0["title"] as? String) == "=2+3 porridge, \"oats\"" })
            #expect(Self.section(document, "meals", "customMeals").map { $0["name"] as? String } == ["Usual lunch"])
            let conflicts = Self.section(document, "meals", "syncConflicts")
            #expect(
                conflicts.map { $0["resolution"] as? String } == ["stale_write_ignored"]
                    && (conflicts.first?["entityId"] as? String)?.lowercased() == recorded.mealIds[1])
            #expect(Self.section(document, "metrics", "bodyMetrics").map { $0["weightKg"] as? Double } == [72.5, 72.1])
            #expect(Self.section(document, "trends", "goalHistory").contains { $0["dailyCalorieGoal"] as? Int == 1800 })
            #expect(Self.section(document, "sharing", "shareLinks").map { $0["token"] as? String } == [recorded.shareToken])

            // Nothing that signs in: no password hash (bcrypt's "$2"), no tokens, no hash columns.
            for secret in [recorded.user.refreshToken, recorded.user.token, "$2a$", "$2b$", "$2y$", "password_hash", "passwordHash", "tokenHash"] {
                #expect(!text.contains(secret), "the export holds \(secret.prefix(12))…")
            }
            // Nothing of the other user.
            for foreign in [other.email, other.idPath, soup.id.uuidString.lowercased(), "Bo's secret soup"] {
                #expect(!text.contains(foreign), "Ada's export holds \(foreign)")
            }
            let (otherText, otherDocument) = try await Self.jsonExport(stack, token: other.token)
            #expect(Self.section(otherDocument, "meals", "meals").map { $0["title"] as? String } == ["Bo's secret soup"])
            #expect(!otherText.contains(recorded.user.email) && !otherText.contains("porridge") && !otherText.contains(recorded.shareToken))

            let newcomer = try await stack.signUp("Cy")
            let (_, empty) = try await Self.jsonExport(stack, token: newcomer.token)
            #expect((empty["account"] as? [String: Any])?["account"] is [String: Any])
            for (part, key) in [("meals", "meals"), ("meals", "customMeals"), ("metrics", "bodyMetrics"), ("sharing", "shareLinks")] {
                #expect(Self.section(empty, part, key).isEmpty, "a new user's \(part).\(key) is not empty")
            }
        }
    }

    /// What Python's zipfile and csv read from the zip: `testzip()`, and each file's rows (the header first).
    struct ZipReading: Decodable {
        var bad: String?
        var files: [String: [[String]]]
    }

    static func readZip(_ bytes: Data) throws -> ZipReading {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString).zip")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import csv, io, json, sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                bad = z.testzip()
                files = {n: list(csv.reader(io.StringIO(z.read(n).decode("utf-8"), newline=""))) for n in z.namelist()}
            print(json.dumps({"bad": bad, "files": files}))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "python could not read the zip")
        return try JSONDecoder().decode(ZipReading.self, from: output)
    }

    @Test("CSV: a zip of one RFC 4180 file per table with the caller's rows; formulas guarded; then 429 in the error shape past the limit")
    func csvExportAndRateLimit() async throws {
        try await FullStack.run(start: OfflineSyncJourneyTests.start, rateLimits: ["export": 2]) { stack in
            let recorded = try await Self.recordEverything(stack)
            let other = try await stack.signUp("Bo")
            _ = try await stack.logMeal("Bo's secret soup", calories: 300, token: other.token)

            let response = try await stack.expect(.ok, .get, "/api/export?format=csv", token: recorded.user.token)
            #expect(response.headers[.contentType] == "application/zip")
            #expect(response.headers[.contentDisposition]?.hasSuffix(".zip\"") == true)
            let zip = try Self.readZip(Data(buffer: response.body))
            #expect(zip.bad == nil)
            let expected = [
                "account.csv", "profile.csv", "sessions.csv", "profile_sync_conflicts.csv", "meals.csv", "meal_items.csv", "custom_meals.csv",
                "meal_sync_conflicts.csv", "vision_usage.csv", "vision_budget.csv", "products.csv", "product_versions.csv",
                "product_reports.csv", "body_metrics.csv", "water_entries.csv", "body_metrics_sync_conflicts.csv", "goal_history.csv",
                "share_links.csv",
            ]
            #expect(Set(zip.files.keys) == Set(expected))
            let rows = zip.files.mapValues { Array($0.dropFirst()) }
            let counts = rows.mapValues(\.count)
            #expect(counts["account.csv"] == 1 && counts["profile.csv"] == 1 && counts["meals.csv"] == 2)
            #expect(counts["meal_items.csv"] == recorded.itemCount && counts["custom_meals.csv"] == 1 && counts["meal_sync_conflicts.csv"] == 1)
            #expect(counts["body_metrics.csv"] == 2 && counts["share_links.csv"] == 1 && (counts["goal_history.csv"] ?? 0) >= 1)
            #expect(counts["profile_sync_conflicts.csv"] == 0 && counts["body_metrics_sync_conflicts.csv"] == 0 && counts["water_entries.csv"] == 0)
            #expect(counts["products.csv"] == 0 && counts["product_versions.csv"] == 0, "the journey adds no product")
            let mealHeader = zip.files["meals.csv"]?.first ?? []
            let titleColumn = try #require(mealHeader.firstIndex(of: "title"))
            #expect(rows["meals.csv"]?.contains { $0[titleColumn] == "'=2+3 porridge, \"oats\"" } == true, "the formula is not guarded")
            let everything = zip.files.values.flatMap { $0.flatMap { $0 } }.joined(separator: "\n")
            #expect(!everything.contains("Bo's secret soup") && !everything.contains(other.email) && !everything.contains(recorded.user.refreshToken))
            #expect(IdSpelling.upperCaseUUIDs(in: everything).isEmpty, "ids in upper case in the CSV export")

            // A part alone, through the gateway, counts in the same budget of 2: the next export is one too many.
            let part = try await stack.expect(.ok, .get, "/api/export/metrics?format=csv&table=body_metrics", token: recorded.user.token)
            #expect(String(buffer: part.body).hasPrefix("day,weightKg,ketones,notes,version,updatedAt,modifiedAt\r\n2026-03-09,72.5,"))
            let refused = try await stack.expect(.tooManyRequests, .get, "/api/export?format=json", token: recorded.user.token)
            #expect(refused.errorCode == "rate_limited" && refused.headers[.retryAfter] != nil)
            // Another user's budget is their own.
            try await stack.expect(.ok, .get, "/api/export?format=json", token: other.token)
            let unknownFormat = try await stack.expect(.unprocessableContent, .get, "/api/export?format=xml", token: other.token)
            #expect(unknownFormat.errorCode == "validation_failed")
        }
    }
}
