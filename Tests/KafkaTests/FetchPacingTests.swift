import Kafka
import Testing

/// `FetchPacing`: when an idle consumer stops fetching and when it fetches again.
@Suite("Fetch pacing of idle consumers")
struct FetchPacingTests {
    let start = ContinuousClock.now

    func pacing(idleAfter: Duration = .seconds(2), recheck: Duration = .seconds(5)) -> FetchPacing {
        FetchPacing(idleAfter: idleAfter, recheck: recheck, now: start)
    }

    @Test("a new consumer fetches for idleAfter, then pauses once, and checks for unread messages every recheck")
    func pausesWhenIdle() {
        var state = pacing()
        #expect(state.emptyPoll(at: start + .seconds(1)) == .none)
        #expect(!state.isPaused)
        #expect(state.emptyPoll(at: start + .seconds(2)) == .pause)
        #expect(state.isPaused)
        #expect(state.emptyPoll(at: start + .seconds(3)) == .none, "already paused: nothing more to do")
        #expect(state.emptyPoll(at: start + .milliseconds(6_999)) == .none)
        #expect(state.emptyPoll(at: start + .seconds(7)) == .checkForUnread, "the recheck, recheck after the pause")
        #expect(state.checked(unread: false, at: start + .seconds(7)) == .none, "nothing unread: stays paused")
        #expect(state.isPaused)
        #expect(state.emptyPoll(at: start + .milliseconds(11_999)) == .none, "the next check counts from this one")
        #expect(state.emptyPoll(at: start + .seconds(12)) == .checkForUnread)
        #expect(state.checked(unread: true, at: start + .seconds(12)) == .resume, "a missed wake-up: fetch")
        #expect(state.emptyPoll(at: start + .milliseconds(13_999)) == .none, "fetching for idleAfter")
        #expect(state.emptyPoll(at: start + .seconds(14)) == .pause)
    }

    @Test("each message keeps it fetching for idleAfter from that message")
    func messagesKeepItFetching() {
        var state = pacing()
        #expect(state.received(at: start + .seconds(1)) == .none)
        #expect(state.received(at: start + .milliseconds(2_500)) == .none)
        #expect(state.emptyPoll(at: start + .milliseconds(4_499)) == .none)
        #expect(state.emptyPoll(at: start + .milliseconds(4_500)) == .pause)
    }

    @Test("a wake-up resumes a paused consumer at once and keeps it fetching for idleAfter; one while fetching only extends")
    func wakeUps() {
        var state = pacing()
        #expect(state.emptyPoll(at: start + .seconds(2)) == .pause)
        #expect(state.woken(at: start + .seconds(3)) == .resume)
        #expect(!state.isPaused)
        #expect(state.woken(at: start + .seconds(4)) == .none, "already fetching")
        #expect(state.emptyPoll(at: start + .milliseconds(5_999)) == .none, "fetching until 2 s after the last wake-up")
        #expect(state.emptyPoll(at: start + .seconds(6)) == .pause)
    }

    @Test("a message from a fetch sent before the pause resumes it: more may follow")
    func messageWhilePaused() {
        var state = pacing()
        #expect(state.emptyPoll(at: start + .seconds(2)) == .pause)
        #expect(state.received(at: start + .milliseconds(2_010)) == .resume)
        #expect(state.emptyPoll(at: start + .milliseconds(4_009)) == .none)
        #expect(state.emptyPoll(at: start + .milliseconds(4_010)) == .pause)
    }

    @Test("with idleAfter zero (a Kafka cluster) it never pauses, whatever happens")
    func disabled() {
        var state = pacing(idleAfter: .zero)
        #expect(!state.isEnabled)
        for second in 0..<30 {
            #expect(state.emptyPoll(at: start + .seconds(second)) == .none)
        }
        #expect(state.woken(at: start + .seconds(31)) == .none)
        #expect(state.received(at: start + .seconds(32)) == .none)
        #expect(!state.isPaused)
    }
}

extension FetchPacingTests {
    @Test("a poll waits until the next decision is due, within its floor and ceiling")
    func pollSlices() {
        var state = pacing()
        let floor = Duration.milliseconds(20)
        let ceiling = Duration.milliseconds(500)
        #expect(state.untilNextDecision(at: start, floor: floor, ceiling: ceiling) == ceiling, "2 s of fetching ahead")
        #expect(state.untilNextDecision(at: start + .milliseconds(1_900), floor: floor, ceiling: ceiling) == .milliseconds(100))
        #expect(state.untilNextDecision(at: start + .milliseconds(1_995), floor: floor, ceiling: ceiling) == floor)
        #expect(state.emptyPoll(at: start + .seconds(2)) == .pause)
        #expect(state.untilNextDecision(at: start + .milliseconds(6_800), floor: floor, ceiling: ceiling) == .milliseconds(200), "the check")
        #expect(pacing(idleAfter: .zero).untilNextDecision(at: start, floor: floor, ceiling: ceiling) == ceiling, "off: the ceiling")
    }
}

extension FetchPacingTests {
    @Test("unsettled (a backlog, no partitions, others after a rebalance) it never pauses, and a paused one fetches again")
    func unsettled() {
        var state = pacing()
        let first: Set = [TopicPartition(topic: "meal.consumed", partition: 0)]
        let others: Set = [TopicPartition(topic: "meal.consumed", partition: 1), TopicPartition(topic: "meal.consumed", partition: 2)]
        #expect(state.idle(at: start + .seconds(3), assigned: first, readToEnd: false) == .none, "behind its end: keeps fetching")
        #expect(state.idle(at: start + .seconds(4), assigned: [], readToEnd: true) == .none, "no partitions: keeps fetching")
        #expect(!state.isPaused)
        #expect(
            state.idle(at: start + .milliseconds(5_999), assigned: first, readToEnd: true) == .none, "idleAfter counts from the last unsettled poll")
        #expect(state.idle(at: start + .seconds(6), assigned: first, readToEnd: true) == .pause)
        state.paused(first)
        #expect(state.idle(at: start + .seconds(7), assigned: first, readToEnd: true) == .none, "the same partitions: stays paused")
        #expect(state.idle(at: start + .seconds(8), assigned: others, readToEnd: true) == .resume, "rejoined with other partitions: fetch at once")
        #expect(state.pausedPartitions == first, "a resume covers what was paused, which librdkafka keeps paused across the rebalance")
        #expect(state.idle(at: start + .milliseconds(9_999), assigned: others, readToEnd: true) == .none)
        #expect(state.idle(at: start + .seconds(10), assigned: others, readToEnd: true) == .pause)
    }
}

extension FetchPacing {
    /// A poll that found nothing, as `KafkaConsumer` reports it when settled: one partition read to its end, and a
    /// pause recorded as applied to it.
    mutating func emptyPoll(at now: ContinuousClock.Instant) -> Action {
        let partitions: Set = [TopicPartition(topic: "user.deleted", partition: 0)]
        let action = idle(at: now, assigned: partitions, readToEnd: true)
        if action == .pause { paused(partitions) }
        return action
    }
}
