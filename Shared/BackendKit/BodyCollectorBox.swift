import NIOCore

/// The storage of a `BodyCollector` (a writer is consumed by `finish`, its box outlives it).
final class BodyCollectorBox: @unchecked Sendable {
    var buffer = ByteBuffer()
    var overflowed = false
}
