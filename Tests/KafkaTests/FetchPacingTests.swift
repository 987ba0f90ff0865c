import Kafka
import Testing

/// `FetchPacing`: when an idle consumer stops fetching and when it fetches again.
@Suite("Fetch pacing of idle consumers")
struct FetchPacingTests {
    let start = ContinuousClock.now

    func pacing(idleAfter: Duration = .seconds(2), recheck: Duration = .seconds(5)) -> FetchPacing {
        FetchPacing(idleAfter: idleAfter, recheck: recheck, recheckWindow: .milliseconds(250), now: start)
    }

    @Test("a new consumer fetches for idleAfter, then pauses once, and stays paused until the recheck")
    func pausesWhenIdle() {
        var state = pacing()
        #expect(state.idle(at: start + .seconds(1)) == .none)
        #expect(!state.isPaused)
        #expect(state.idle(at: start + .seconds(2)) == .pause)
        #expect(state.isPaused)
        #expect(state.idle(at: start + .seconds(3)) == .none, "already paused: nothing more to do")
        #expect(state.idle(at: start + .milliseconds(6_999)) == .none)
        #expect(state.idle(at: start + .seconds(7)) == .resume, "the recheck, recheck after the pause")
        #expect(state.idle(at: start + .milliseconds(7_100)) == .none, "fetching for the recheck window")
        #expect(state.idle(at: start + .milliseconds(7_250)) == .pause, "nothing came: paused again after the window")
    }

    @Test("each message keeps it fetching for idleAfter from that message")
    func messagesKeepItFetching() {
        var state = pacing()
        #expect(state.received(at: start + .seconds(1)) == .none)
        #expect(state.received(at: start + .milliseconds(2_500)) == .none)
        #expect(state.idle(at: start + .milliseconds(4_499)) == .none)
        #expect(state.idle(at: start + .milliseconds(4_500)) == .pause)
    }

    @Test("a wake-up resumes a paused consumer at once and keeps it fetching for idleAfter; one while fetching only extends")
    func wakeUps() {
        var state = pacing()
        #expect(state.idle(at: start + .seconds(2)) == .pause)
        #expect(state.woken(at: start + .seconds(3)) == .resume)
        #expect(!state.isPaused)
        #expect(state.woken(at: start + .seconds(4)) == .none, "already fetching")
        #expect(state.idle(at: start + .milliseconds(5_999)) == .none, "fetching until 2 s after the last wake-up")
        #expect(state.idle(at: start + .seconds(6)) == .pause)
    }

    @Test("a message from a fetch sent before the pause resumes it: more may follow")
    func messageWhilePaused() {
        var state = pacing()
        #expect(state.idle(at: start + .seconds(2)) == .pause)
        #expect(state.received(at: start + .milliseconds(2_010)) == .resume)
        #expect(state.idle(at: start + .milliseconds(4_009)) == .none)
        #expect(state.idle(at: start + .milliseconds(4_010)) == .pause)
    }

    @Test("with idleAfter zero (a Kafka cluster) it never pauses, whatever happens")
    func disabled() {
        var state = pacing(idleAfter: .zero)
        #expect(!state.isEnabled)
        for second in 0..<30 {
            #expect(state.idle(at: start + .seconds(second)) == .none)
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
        #expect(state.idle(at: start + .seconds(2)) == .pause)
        #expect(state.untilNextDecision(at: start + .milliseconds(6_800), floor: floor, ceiling: ceiling) == .milliseconds(200), "the recheck")
        #expect(pacing(idleAfter: .zero).untilNextDecision(at: start, floor: floor, ceiling: ceiling) == ceiling, "off: the ceiling")
    }
}
