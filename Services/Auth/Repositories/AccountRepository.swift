import EventContracts
import Foundation
import NIOCore
import PostgresNIO
import SyncContracts

/// Users and their profiles in schema `auth`.
struct AccountRepository: Sendable {
    /// An account's identity as shown to its owner.
    struct User: Sendable, Equatable {
        var id: UUID
        var email: String
        var createdAt: Date
    }

    /// Thrown by `insertUser` when the address is already registered.
    struct EmailTaken: Error {}

    func insertUser(id: UUID, email: EmailAddress, passwordHash: String, now: Date, on connection: PostgresConnection, logger: Logger) async throws {
        do {
            try await connection.query(
                """
                INSERT INTO users (id, email, email_key, password_hash, created_at, password_changed_at)
                VALUES (\(id), \(email.value), \(email.key), \(passwordHash), \(now), \(now))
                """, logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw EmailTaken()
        }
    }

    /// The account id and password hash for a sign-in address.
    func credentials(emailKey: String, on connection: PostgresConnection, logger: Logger) async throws -> (userId: UUID, passwordHash: String)? {
        let rows = try await connection.query("SELECT id, password_hash FROM users WHERE email_key = \(emailKey)", logger: logger)
        for try await (id, hash) in rows.decode((UUID, String).self) { return (id, hash) }
        return nil
    }

    func passwordHash(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> String? {
        let rows = try await connection.query("SELECT password_hash FROM users WHERE id = \(userId)", logger: logger)
        for try await hash in rows.decode(String.self) { return hash }
        return nil
    }

    func user(id: UUID, on connection: PostgresConnection, logger: Logger) async throws -> User? {
        let rows = try await connection.query("SELECT id, email, created_at FROM users WHERE id = \(id)", logger: logger)
        for try await (id, email, createdAt) in rows.decode((UUID, String, Date).self) { return User(id: id, email: email, createdAt: createdAt) }
        return nil
    }

    func setPassword(userId: UUID, passwordHash: String, now: Date, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "UPDATE users SET password_hash = \(passwordHash), password_changed_at = \(now) WHERE id = \(userId)", logger: logger)
    }

    /// Deletes the account; every row that references it goes with it. False when it was already gone.
    func delete(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query("DELETE FROM users WHERE id = \(userId) RETURNING id", logger: logger)
        var deleted = false
        for try await _ in rows.decode(UUID.self) { deleted = true }
        return deleted
    }

    /// The profile, locked for update when `forUpdate` (inside a transaction).
    func profile(userId: UUID, forUpdate: Bool = false, on connection: PostgresConnection, logger: Logger) async throws -> Profile? {
        let query: PostgresQuery =
            forUpdate
            ? "SELECT \(unescaped: Self.profileColumns) FROM profiles WHERE user_id = \(userId) FOR UPDATE"
            : "SELECT \(unescaped: Self.profileColumns) FROM profiles WHERE user_id = \(userId)"
        let rows = try await connection.query(query, logger: logger)
        for try await row in rows {
            return try Self.decodeProfile(row)
        }
        return nil
    }

    /// The profile when its last write's change number is after `since` (the profile area of the changes feed).
    func profile(userId: UUID, changedAfter since: Int64, on connection: PostgresConnection, logger: Logger) async throws -> Profile? {
        let rows = try await connection.query(
            "SELECT \(unescaped: Self.profileColumns) FROM profiles WHERE user_id = \(userId) AND change_seq > \(since)", logger: logger)
        for try await row in rows {
            return try Self.decodeProfile(row)
        }
        return nil
    }

    /// Writes every field of `profile`, creating the row at registration and replacing it on every change. The
    /// caller sets `changeSeq` and `writeStamp` (without a stamp the write counts as made at `updatedAt`).
    func saveProfile(_ profile: Profile, on connection: PostgresConnection, logger: Logger) async throws {
        let stamp = profile.writeStamp ?? WriteStamp(profile.updatedAt, tiebreak: "")
        try await connection.query(
            """
            INSERT INTO profiles (
                user_id, display_name, diet_preference, custom_protein_pct, custom_carbs_pct, custom_fat_pct, daily_calorie_goal,
                protein_goal_grams, carbs_goal_grams, fat_goal_grams, calorie_balance_goal, target_weight_kg, weight_unit,
                time_zone, height_cm, birth_date, sex, activity_level, history_retention_days, version, updated_at, change_seq,
                modified_at, modified_tiebreak, goals_effective_from, delete_photos_after_days, daily_water_goal_ml,
                week_start)
            VALUES (
                \(profile.userId), \(profile.displayName), \(profile.dietPreference), \(profile.customMacros?.proteinPercent),
                \(profile.customMacros?.carbsPercent), \(profile.customMacros?.fatPercent), \(profile.dailyCalorieGoal),
                \(profile.proteinGoalGrams), \(profile.carbsGoalGrams), \(profile.fatGoalGrams), \(profile.calorieBalanceGoal),
                \(profile.targetWeightKg), \(profile.weightUnit), \(profile.timeZone), \(profile.heightCm), \(profile.birthDate)::date,
                \(profile.sex), \(profile.activityLevel), \(profile.historyRetentionDays), \(profile.version), \(profile.updatedAt),
                \(profile.changeSeq), \(stamp.date), \(stamp.tiebreak), \(profile.goalsEffectiveFrom)::date, \(profile.deletePhotosAfterDays),
                \(profile.dailyWaterGoalMillilitres), \(profile.weekStart.rawValue))
            ON CONFLICT (user_id) DO UPDATE SET
                display_name = EXCLUDED.display_name, diet_preference = EXCLUDED.diet_preference,
                custom_protein_pct = EXCLUDED.custom_protein_pct, custom_carbs_pct = EXCLUDED.custom_carbs_pct,
                custom_fat_pct = EXCLUDED.custom_fat_pct, daily_calorie_goal = EXCLUDED.daily_calorie_goal,
                protein_goal_grams = EXCLUDED.protein_goal_grams, carbs_goal_grams = EXCLUDED.carbs_goal_grams,
                fat_goal_grams = EXCLUDED.fat_goal_grams, calorie_balance_goal = EXCLUDED.calorie_balance_goal,
                target_weight_kg = EXCLUDED.target_weight_kg, weight_unit = EXCLUDED.weight_unit, time_zone = EXCLUDED.time_zone,
                height_cm = EXCLUDED.height_cm, birth_date = EXCLUDED.birth_date, sex = EXCLUDED.sex,
                activity_level = EXCLUDED.activity_level, history_retention_days = EXCLUDED.history_retention_days,
                version = EXCLUDED.version, updated_at = EXCLUDED.updated_at,
                change_seq = EXCLUDED.change_seq, modified_at = EXCLUDED.modified_at, modified_tiebreak = EXCLUDED.modified_tiebreak,
                goals_effective_from = EXCLUDED.goals_effective_from, delete_photos_after_days = EXCLUDED.delete_photos_after_days,
                daily_water_goal_ml = EXCLUDED.daily_water_goal_ml, week_start = EXCLUDED.week_start
            """, logger: logger)
    }

    private static let profileColumns = """
        user_id, display_name, diet_preference, custom_protein_pct, custom_carbs_pct, custom_fat_pct, daily_calorie_goal,
        protein_goal_grams, carbs_goal_grams, fat_goal_grams, calorie_balance_goal, target_weight_kg, weight_unit, time_zone,
        height_cm, to_char(birth_date, 'YYYY-MM-DD'), sex, activity_level, history_retention_days, version, updated_at,
        change_seq, modified_at, modified_tiebreak, to_char(goals_effective_from, 'YYYY-MM-DD'), delete_photos_after_days,
        daily_water_goal_ml, week_start
        """

    private static func decodeProfile(_ row: PostgresRow) throws -> Profile {
        let (
            userId, displayName, diet, proteinPercent, carbsPercent, fatPercent, calories, proteinGoal, carbsGoal, fatGoal,
            balance, targetWeight, unit, zone, height, birthDate, sex, activity, retention, version, updatedAt,
            changeSeq, modifiedAt, tiebreak, goalsEffectiveFrom, photoRetention, waterGoal, weekStart
        ) = try row.decode(
            (
                UUID, String, String, Double?, Double?, Double?, Int?, Int?, Int?, Int?,
                Int?, Double?, String, String, Double?, String?, String?, String?, Int?, Int, Date,
                Int64, Date, String, String, Int?, Int?, String
            ).self)
        var macros: MacroSplit?
        if let proteinPercent, let carbsPercent, let fatPercent {
            macros = MacroSplit(proteinPercent: proteinPercent, carbsPercent: carbsPercent, fatPercent: fatPercent)
        }
        return Profile(
            userId: userId, displayName: displayName, dietPreference: diet, customMacros: macros, dailyCalorieGoal: calories,
            proteinGoalGrams: proteinGoal, carbsGoalGrams: carbsGoal, fatGoalGrams: fatGoal, calorieBalanceGoal: balance,
            targetWeightKg: targetWeight, weightUnit: unit, timeZone: zone, heightCm: height, birthDate: birthDate, sex: sex,
            activityLevel: activity, historyRetentionDays: retention, deletePhotosAfterDays: photoRetention,
            dailyWaterGoalMillilitres: waterGoal, weekStart: Weekday(rawValue: weekStart) ?? .monday, version: version, updatedAt: updatedAt,
            changeSeq: changeSeq,
            writeStamp: WriteStamp(modifiedAt, tiebreak: tiebreak), goalsEffectiveFrom: goalsEffectiveFrom)
    }
}
