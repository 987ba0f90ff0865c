import AccessTokens
import Foundation
import Hummingbird
import ServiceDefaults

/// Sign-up: `POST /api/auth/register`, in the forms the seeds send it (`{email, password}` alone, with
/// `displayName`, or with its alias `name`), with the device's `timeZone` when the app sends it.
struct RegistrationController: Sendable {
    let store: any AccountStore
    let hasher: PasswordHasher
    /// The session's idle life: how long a web client's refresh cookie lives.
    let sessionLifetime: Duration
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/api/auth/register", use: register)
    }

    /// `POST /api/auth/register`: 201 with tokens (or cookies, `SessionAnswer`), account and profile (in `timeZone`,
    /// UTC without it); 409 `email_taken`; 422 without `email` or `password`; 422 naming each bad
    /// field (`name` when it differs from `displayName`, `timeZone` when it is not an IANA name).
    @Sendable func register(request: Request, context: AppRequestContext) async throws -> SessionAnswer {
        let logger = context.logger
        if let refusal = SessionCookies.transportRefusal(in: request.headers) { throw refusal }
        let body = try await request.decodeJSON(as: RegisterRequest.self, context: context)
        var problems: [String: String] = [:]
        let email = EmailAddress(body.email)
        if email == nil { problems["email"] = "must be a valid email address" }
        if let problem = PasswordPolicy.problem(with: body.password) { problems["password"] = problem }
        let displayName = Self.displayName(of: body, email: email, problems: &problems)
        if let zone = body.timeZone, let problem = TimeZoneName.problem(with: zone) { problems["timeZone"] = problem }
        guard let email, let displayName, problems.isEmpty else { throw APIError.invalid(problems) }

        let passwordHash = try await hasher.hash(body.password)
        let now = now()
        let userId = UUID()
        var profile = Profile(userId: userId, displayName: displayName, updatedAt: now)
        // The zone goes out in the registration's `user.profile_updated`, so every service counts days in it from the start.
        profile.timeZone = body.timeZone ?? profile.timeZone
        profile.goalsEffectiveFrom = profile.localDate(of: now)
        let answer = try await store.register(
            userId: userId, email: email, passwordHash: passwordHash, profile: profile, request: request, now: now, logger: logger)
        return SessionAnswer(answer, status: .created, request: request, sessionLifetime: sessionLifetime)
    }

    /// The display name a sign-up asks for, trimmed: `displayName`, else `name`, else the part of the email before
    /// `@` (cut to the display-name limit). Nil, with the problem noted by field, when it is not acceptable.
    static func displayName(of body: RegisterRequest, email: EmailAddress?, problems: inout [String: String]) -> String? {
        if let displayName = body.displayName, let name = body.name, displayName != name {
            problems["name"] = "must equal displayName when both are sent (name is its alias)"
            return nil
        }
        if let chosen = body.displayName ?? body.name {
            let field = body.displayName != nil ? "displayName" : "name"
            if let problem = DisplayName.problem(with: chosen) {
                problems[field] = problem
                return nil
            }
            return chosen.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let email else { return nil }
        let localPart = email.value.split(separator: "@", omittingEmptySubsequences: false)[0]
        let derived = String(localPart.trimmingCharacters(in: .whitespacesAndNewlines).prefix(DisplayName.maximumLength))
        if let problem = DisplayName.problem(with: derived) {
            problems["displayName"] = "is required for this email address: the part before @ \(problem)"
            return nil
        }
        return derived
    }
}
