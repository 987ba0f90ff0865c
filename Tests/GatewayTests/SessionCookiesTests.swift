import AccessTokens
import Testing

/// Reading the session cookies strictly: one value per name, ASCII whitespace only, and never passed to other services.
@Suite("Session cookies")
struct SessionCookiesTests {
    @Test("a cookie is read by its exact name; a name sent twice or padded with other whitespace is not trusted")
    func reading() {
        let access = SessionCookies.access
        #expect(SessionCookies.value(of: access, in: "theme=dark;\t\(access)=abc ; x=1") == "abc")
        #expect(SessionCookies.value(of: access, in: "\(access)=abc; \(access)=def") == nil)
        #expect(SessionCookies.value(of: access, in: "\u{A0}\(access)=evil") == nil)
        #expect(SessionCookies.value(of: access, in: "\(access)=") == nil && SessionCookies.value(of: access, in: nil) == nil)
        #expect(SessionCookies.value(of: access, in: "\(access)x=abc") == nil)
    }

    @Test("other services get the Cookie header without the session cookies")
    func stripping() {
        let header = "theme=dark; \(SessionCookies.access)=a; \(SessionCookies.refresh)=r; lang=en; \(SessionCookies.csrf)=c"
        #expect(SessionCookies.withoutSession(header) == "theme=dark; lang=en")
        #expect(SessionCookies.withoutSession("\(SessionCookies.access)=a") == nil)
    }

    @Test("Set-Cookie values follow the __Host- rules; only the CSRF cookie is readable by the page")
    func setCookie() {
        let access = SessionCookies.setCookie(SessionCookies.access, value: "t", maxAge: 900)
        #expect(access == "__Host-nutritionai-access=t; Path=/; Max-Age=900; Secure; SameSite=Strict; HttpOnly")
        #expect(!SessionCookies.setCookie(SessionCookies.csrf, value: "c", maxAge: 60).contains("HttpOnly"))
    }
}
