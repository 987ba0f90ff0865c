import ServiceDefaults

/// What the pass-through does with a request, decided from its head alone (`PassThroughAdmission`).
enum PassThroughDecision {
    /// The router handles it, exactly as if there were no pass-through.
    case delegate
    /// Answer this error at once (a rate-limit refusal, or 503 while the store of a fail-closed policy is down); the
    /// request's body is read and dropped.
    case refuse(APIError, route: String)
    /// Forward it to its upstream.
    case forward(PassThroughRequest)
}
