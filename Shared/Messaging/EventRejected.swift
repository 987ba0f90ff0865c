/// An event this consumer cannot apply: a `dataschemaversion` it does not read, an unreadable payload, or one against
/// the contract. The inbox parks it (`parked_events`) with this reason, never skips it, and retries it later.
public struct EventRejected: Error, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
