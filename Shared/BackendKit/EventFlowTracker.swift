import Kafka
import Messaging
import PostgresSupport
import ServiceDefaults

/// Turns samples of a service's outbox backlog and consumer status into a verdict, remembering across samples
/// since when a consumer has had no partitions and since when a lagging partition has not advanced.
///
/// Events are degraded when, for at least `stuckAfter`:
/// - an outbox row has waited unsent (the relay cannot publish);
/// - a consumer has had no partition assigned (it lost its group, or the group cannot settle);
/// - a partition has had lag while the consumer's position in it did not move (the consumer is stuck);
/// and at once while a consumer has parked events (it could not apply them; they wait for an upgrade or a fix).
/// Before `stuckAfter`, a consumer without partitions makes the verdict `waiting`: this replica has not been given its
/// share of the partitions yet (it is joining its group, or the group rebalances after a replica came or went). A replica
/// beyond the topics' partition count gets none and keeps saying so (`degraded` after `stuckAfter`).
public struct EventFlowTracker: Sendable {
    /// One partition as a consumer group sees it.
    struct PartitionKey: Hashable, Sendable {
        var group: String
        var topic: String
        var partition: Int32
    }

    public let stuckAfter: Duration
    private var unassignedSince: [String: ContinuousClock.Instant] = [:]
    private var stalledSince: [PartitionKey: (processed: Int64?, since: ContinuousClock.Instant)] = [:]

    public init(stuckAfter: Duration) {
        self.stuckAfter = stuckAfter
    }

    /// The verdict for one sample taken at `now`. `backlog` is nil when the outbox could not be read (the
    /// database's own readiness check reports that); `parked` lists the consumers' parked events per topic.
    public mutating func assess(
        backlog: [OutboxBacklog]?, consumers: [(group: String, status: ConsumerStatus)], parked: [ParkedBacklog] = [],
        now: ContinuousClock.Instant
    ) -> EventFlowVerdict {
        var reasons: [String] = []
        for entry in parked where entry.parked > 0 {
            reasons.append("consumer group \(entry.group): \(entry.parked) \(entry.topic) events parked (see parked_events)")
        }
        for topic in backlog ?? [] where topic.unsent > 0 && topic.oldestAge >= stuckAfter {
            reasons.append("outbox \(topic.topic): \(topic.unsent) rows unsent, the oldest for \(Int(topic.oldestAge.timeInterval)) s")
        }
        var seen: Set<PartitionKey> = []
        var waiting: [String] = []
        for (group, status) in consumers {
            if status.assigned.isEmpty {
                let since = unassignedSince[group] ?? now
                unassignedSince[group] = since
                if now - since >= stuckAfter {
                    reasons.append("consumer group \(group): no partition assigned for \(Int((now - since).timeInterval)) s")
                } else {
                    waiting.append(group)
                }
                continue
            }
            unassignedSince[group] = nil
            for partition in status.assigned {
                let key = PartitionKey(group: group, topic: partition.topic, partition: partition.partition)
                guard let lag = partition.lag, lag > 0 else { continue }
                seen.insert(key)
                var since = now
                if let previous = stalledSince[key], previous.processed == partition.processedOffset { since = previous.since }
                stalledSince[key] = (partition.processedOffset, since)
                if now - since >= stuckAfter {
                    let seconds = Int((now - since).timeInterval)
                    reasons.append(
                        "consumer group \(group): \(partition.topic)[\(partition.partition)] \(lag) behind and not advancing for \(seconds) s")
                }
            }
        }
        stalledSince = stalledSince.filter { seen.contains($0.key) }
        return EventFlowVerdict(reasons: reasons, waitingGroups: waiting)
    }
}
