/// Every address of an upstream has been tried for one request (the gateway answers 503 `upstream_unavailable`).
struct UpstreamAddressesExhausted: Error, CustomStringConvertible {
    var description: String { "no address of the upstream could be connected to" }
}
