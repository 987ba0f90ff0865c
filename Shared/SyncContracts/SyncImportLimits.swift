/// The bounds of a bulk import, the same at the gateway (`POST /api/sync/import`) and in each area's import route.
public enum SyncImportLimits {
    /// Most items one import may carry (meals and weigh-ins together at the gateway).
    public static let maximumItems = 500
    /// Largest import body read: 500 meals of several free-value items each fit with room to spare.
    public static let maximumBodyBytes = 4 << 20
}
