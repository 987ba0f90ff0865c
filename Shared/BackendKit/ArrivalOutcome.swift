/// How a wait for an event's effect (`EventArrivals.wait`) ended.
public enum ArrivalOutcome<Value: Sendable>: Sendable {
    /// The lookup found it (at once or after the event arrived).
    case found(Value)
    /// Still missing after the wait's limit, or the server began to stop.
    case notYet
    /// Not waited for: too many requests, or too many of the user's, wait already.
    case full
}
