"""The fault run's harness (Python 3.11, standard library only); deploy/faults starts it against a running stack.

While writer threads keep a steady write load on the gateway (manual meals, consume/unconsume, edits, weights,
share links, packaged products in the foods service), it injects faults one after another through `deploy/stack`
(SIGKILL and restart of every service and the gateway, a broker restart, a PostgreSQL restart, SIGTERM during a
batch of in-flight requests for every part, and a stall of every part: SIGSTOP, then SIGCONT), measures each part's
way back to ready and to events flowing (within --events-limit, 10 s, of its return; for a stall, --stall-limit and its
slowest request), then waits for the events to drain and checks that every acknowledged write is there and that
every event's effect reached the read models exactly once.

Every write is recorded with its outcome:
  ack        2xx: it happened; its result (id, version, state) is the ground truth;
  refused    4xx, or 503 (the gateway could not reach the service, or the service's dependency was down):
             it did not happen;
  ambiguous  any other 5xx, a reset or a timeout: it may or may not have happened; a meal with such a write is
             read back before it is touched again, and its final state may be newer than the last acknowledged one.
The report (tables on stdout, everything in JSON at --report) lists what was injected and what was checked;
the exit status is 1 when any check failed.
"""
