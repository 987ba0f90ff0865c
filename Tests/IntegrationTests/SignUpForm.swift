/// How a test signs up, as the seeds do it: with `displayName` (NutritionAI), with its alias `name` (the dashboard
/// document, 001), or with email and password alone (FitAI 002, CountMe 003).
enum SignUpForm: Sendable {
    case displayName
    case name
    case emailAndPasswordOnly

    /// The JSON body of `POST /api/auth/register` for these values.
    func body(email: String, password: String, name: String) -> String {
        switch self {
        case .displayName: #"{"email":"\#(email)","password":"\#(password)","displayName":"\#(name)"}"#
        case .name: #"{"email":"\#(email)","password":"\#(password)","name":"\#(name)"}"#
        case .emailAndPasswordOnly: #"{"email":"\#(email)","password":"\#(password)"}"#
        }
    }
}
