/// A cheap fingerprint of a large body read in chunks: its size and a sum of every 4096th byte weighted by its
/// position, so lost, repeated or reordered parts show.
struct UploadSample {
    private(set) var bytes = 0
    private(set) var sum = 0

    mutating func add(_ chunk: some Collection<UInt8>) {
        var offset = (4096 - bytes % 4096) % 4096
        let start = bytes
        bytes += chunk.count
        while start + offset < bytes {
            let byte = chunk[chunk.index(chunk.startIndex, offsetBy: offset)]
            sum = (sum &+ Int(byte) &* ((start + offset) / 4096 % 251 + 1)) % 1_000_003
            offset += 4096
        }
    }
}
