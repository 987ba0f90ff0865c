/// One part of the stack read from `/proc` at one moment: its CPU time so far (with the processes below it) and the
/// resident memory of its own process, now (VmRSS) and at its peak so far (VmHWM).
struct ProcessSample: Sendable {
    var cpuSeconds: Double
    var residentBytes: Int
    var peakResidentBytes: Int
}
