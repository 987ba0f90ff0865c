/// The `# HELP` text of every metric the processes expose (`DescribedPrometheusFactory` registers each metric with
/// its line here). A new metric needs its line: without it the metric has no help text and the test command's
/// `promtool check metrics` of every admin port fails. What each means for an operator, with its normal values and
/// alarms: docs/OPERATIONS.md, "Metrics" and "Event metrics".
public enum MetricHelp {
    /// The help text of the metric exposed as `name` (underscores, as Prometheus names it); nil for one not described.
    public static func text(for name: String) -> String? { texts[name] }

    static let texts: [String: String] = [
        // Every process: requests (RequestMetricsRecorder), the pool, the admin server.
        "hb_requests_total": "Requests answered, by route pattern, method and status.",
        "hb_request_errors_total": "Requests that ended in an error answer, by route pattern, method and the status answered.",
        "http_server_request_duration": "Time from a request's head to its answer, in seconds, by route pattern, method and status.",
        "http_server_active_requests": "Requests being handled now, by method.",
        "postgres_pool_connections": "PostgreSQL connections of the pool, by pool and state (leased or idle).",
        "postgres_pool_connections_max": "The most connections the pool may open (POSTGRES_POOL_MAX).",
        "postgres_pool_waiters": "Requests waiting for a pool connection now.",
        "scheduled_job_rounds_total": "Rounds of a scheduled job, by job and outcome (ran, skipped because another replica ran it, failed).",
        // Events: outbox, relay, consumers, inbox, parked events.
        "outbox_unsent_rows": "Outbox rows not yet published, by topic.",
        "outbox_oldest_unsent_age_seconds": "Age of the oldest unpublished outbox row, by topic, in seconds.",
        "outbox_publish_failures_total": "Outbox batches the broker refused or failed, by reason.",
        "outbox_relay_leader": "1 on the replica whose relay publishes the outbox now, else 0.",
        "kafka_producer_replacements_total": "Kafka producers replaced after a fatal producer error, by reason.",
        "kafka_consumer_assigned_partitions": "Partitions assigned to this consumer, by group.",
        "kafka_consumer_lag": "Messages behind the partition's end, by group, topic and partition.",
        "kafka_consumer_rejoins_total": "Times the consumer rejoined its group after losing it, by group.",
        "inbox_events_total": "Events the inbox consumer handled, by topic and result (applied, duplicate, parked, rejected).",
        "inbox_abandoned_attempts_total": "Event handlings abandoned (no answer from PostgreSQL in time) and retried, by group.",
        "events_parked": "Events received but not applied yet, waiting for what they depend on, by group and topic.",
        "events_parked_total": "Events parked, by group and topic.",
        "events_unparked_total": "Parked events applied later, by group and topic.",
        "events_flow_degraded": "1 while events do not flow (an outbox row waits, a consumer has no partition, events are parked), else 0.",
        // Auth.
        "auth_bcrypt_queue_depth": "Password hashings waiting for a bcrypt thread.",
        "auth_bcrypt_refusals_total": "Sign-ins refused with 503 because the bcrypt queue was full.",
        // Meals.
        "vision_request_duration_seconds": "Calls to the vision provider, in seconds, by outcome and whose key (server or user).",
        "vision_breaker_state": "The server vision provider's circuit breaker: 0 closed, 1 half-open, 2 open.",
        "meals_photo_thumbnails_total": "Photo thumbnails attempted, by outcome (made, timed_out, failed, bad_output, busy, missing).",
        // Foods.
        "openfoodfacts_requests_total":
            "Barcode look-ups at Open Food Facts, by outcome (found, not_found, failed, budget_spent, breaker_open).",
        "openfoodfacts_breaker_state": "The Open Food Facts circuit breaker: 0 closed, 1 half-open, 2 open.",
        "foods_barcode_answers_total": "Barcode look-ups by whether a kept answer served them (cache hit or miss).",
        // Sharing.
        "sharing_card_renders_total": "Share cards rendered to PNG, by outcome.",
        "sharing_card_cache_hits_total": "Share card PNGs answered from the cache without rendering.",
        // Gateway.
        "gateway_pass_through_requests_total": "Requests the gateway forwarded to an upstream, refused or handed to its router, by outcome.",
        "gateway_pass_through_admission_waits_total": "Admissions that waited for a token's first verification or the shared rate-limit store.",
        "gateway_open_streams": "Server-Sent Events answers the gateway is relaying.",
        "gateway_pass_through_body_holds_total": "Times the pass-through stopped reading a client's body until the upstream caught up.",
        "gateway_jwks_refresh_failures_total": "Failed fetches of auth's signing keys (JWKS), by reason.",
        "gateway_revocations_known": "Revoked sessions and users the gateway knows of now.",
        "gateway_revocations_sync_age_seconds": "Seconds since the gateway last heard the revocation list from auth.",
        "gateway_revocations_sync_failures_total": "Failed polls of auth's revocation list, by reason.",
        "gateway_upstream_available_addresses": "Addresses of an upstream in rotation now, by upstream.",
        "gateway_upstream_in_flight": "Requests sent to an upstream address and not answered yet, by upstream and address.",
        "gateway_upstream_ejections_total": "Upstream addresses taken out of rotation, by upstream, address and reason.",
        "gateway_upstream_retries_total": "Requests sent again to another address after a connection failure, by upstream and address.",
        "gateway_rate_limit_refusals_total": "Requests refused with 429 by a rate limit, by policy.",
        "gateway_rate_limit_store_up": "1 while the shared rate-limit store answers, 0 while the gateway counts on its own.",
        "gateway_rate_limit_store_failures_total": "Statements to the shared rate-limit store that failed.",
        "gateway_rate_limit_fallback_total": "Rate-limit decisions made on the gateway's own counts because the store did not answer, by policy.",
    ]
}
