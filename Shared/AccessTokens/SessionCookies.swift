import Foundation

/// Web sign-in by cookie (NutritionAI 000: "HTTP-only cookies (web) or Authorization header (iOS)"): the names auth
/// sets and the gateway reads, and the header a web client sends to ask for them. A client that sends
/// `X-Session-Transport: cookie` to register, login or refresh gets its access and refresh tokens as `__Host-` cookies
/// (HttpOnly, Secure, SameSite=Strict, path `/`) and a readable CSRF cookie to echo in `X-CSRF-Token`; the iOS flow
/// with `Authorization: Bearer` is unchanged, and a request with that header ignores the cookies.
public enum SessionCookies {
    public static let access = "__Host-nutritionai-access"
    public static let refresh = "__Host-nutritionai-refresh"
    /// Not HttpOnly: the page reads it and sends it back in `X-CSRF-Token` (double submit).
    public static let csrf = "__Host-nutritionai-csrf"
    /// `X-Session-Transport: cookie` asks register, login and refresh for cookies.
    public static let transportHeader = "X-Session-Transport"
    /// The header an unsafe request sent with the cookies echoes the CSRF cookie in.
    public static let csrfHeader = "X-CSRF-Token"

    /// The value of cookie `name` in a `Cookie` header (`a=1; b=2`), nil when absent or empty.
    public static func value(of name: String, in cookieHeader: String?) -> String? {
        guard let cookieHeader else { return nil }
        for pair in cookieHeader.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { continue }
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// A `Set-Cookie` value for `name`: path `/`, Secure, SameSite=Strict (as `__Host-` requires), HttpOnly unless it is
    /// the CSRF cookie; `maxAge` 0 clears it.
    public static func setCookie(_ name: String, value: String, maxAge: Int) -> String {
        var cookie = "\(name)=\(value); Path=/; Max-Age=\(maxAge); Secure; SameSite=Strict"
        if name != csrf { cookie += "; HttpOnly" }
        return cookie
    }
}
