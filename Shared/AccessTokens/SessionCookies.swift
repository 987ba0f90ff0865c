import APIContracts
import Foundation
import HTTPTypes

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

    /// The value of cookie `name` in a `Cookie` header (`a=1; b=2`, only ASCII spaces and tabs trimmed), nil when
    /// absent, empty, or sent more than once (a cookie planted from a sibling domain next to the real one is
    /// ambiguous, and never trusted).
    public static func value(of name: String, in cookieHeader: String?) -> String? {
        guard let cookieHeader else { return nil }
        var found: [String] = []
        for pair in cookieHeader.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, trimmed(parts[0]) == name else { continue }
            found.append(trimmed(parts[1]))
        }
        guard found.count == 1, let value = found.first, !value.isEmpty else { return nil }
        return value
    }

    /// The value of cookie `name` in a request's `Cookie` fields, all of them read as one (see `value(of:in:)`).
    public static func value(of name: String, in headers: HTTPFields) -> String? {
        value(of: name, in: headers[values: .cookie].joined(separator: "; "))
    }

    /// Whether a request asks for a cookie session (`X-Session-Transport: cookie`).
    public static func areAsked(in headers: HTTPFields) -> Bool {
        headers[HTTPField.Name(transportHeader)!] == "cookie"
    }

    /// 400 `invalid_session_transport` for an `X-Session-Transport` other than `cookie`, the one value there is: a
    /// misspelt one would otherwise answer the tokens in the body, where the page's scripts can read them.
    public static func transportRefusal(in headers: HTTPFields) -> APIError? {
        let values = headers[values: HTTPField.Name(transportHeader)!]
        guard !values.isEmpty, values != ["cookie"] else { return nil }
        return APIError(
            .badRequest, code: "invalid_session_transport", message: "X-Session-Transport takes one value: cookie.",
            details: [transportHeader: "must be cookie"])
    }

    /// Whether `name` is one of the session cookies (never passed to services other than auth).
    public static func isSessionCookie(_ name: some StringProtocol) -> Bool { [access, refresh, csrf].contains(trimmed(name)) }

    /// The `Cookie` header without the session cookies; nil when nothing else is left.
    public static func withoutSession(_ cookieHeader: String) -> String? {
        let kept = cookieHeader.split(separator: ";").filter { pair in
            !isSessionCookie(pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0])
        }
        let joined = kept.map { trimmed($0) }.filter { !$0.isEmpty }.joined(separator: "; ")
        return joined.isEmpty ? nil : joined
    }

    private static func trimmed(_ text: some StringProtocol) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    /// A `Set-Cookie` value for `name`: path `/`, Secure, SameSite=Strict (as `__Host-` requires), HttpOnly unless it is
    /// the CSRF cookie; `maxAge` 0 clears it.
    public static func setCookie(_ name: String, value: String, maxAge: Int) -> String {
        var cookie = "\(name)=\(value); Path=/; Max-Age=\(maxAge); Secure; SameSite=Strict"
        if name != csrf { cookie += "; HttpOnly" }
        return cookie
    }
}
