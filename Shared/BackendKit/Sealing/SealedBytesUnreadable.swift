/// Sealed bytes that cannot be opened: the key that sealed them (`keyId`) is no longer in the ring, or the bytes or
/// what they were sealed for changed.
public struct SealedBytesUnreadable: Error, Sendable, Equatable {
    public var keyId: String

    /// The failure to open bytes sealed under `keyId`.
    public init(keyId: String) {
        self.keyId = keyId
    }
}
