#!/usr/bin/env bash
# Profile, not a benchmark: where one running process of the stack spends its CPU. Attaches perf (Debian's
# linux-perf, call graphs by frame pointer) to it for `seconds` while a load or a benchmark runs elsewhere, then
# prints the `top` symbols by the samples in the symbol itself (perf report --no-children), Swift names demangled
# by the toolchain's swift-demangle. Asserts nothing; it starts no load of its own.
#   deploy/bench/profile.sh NAME|PID [seconds=20] [top=25]
# NAME is a part of the stack (gateway, auth, meals, metrics, trends, sharing, foods, broker: the pid file of the stack this
# checkout runs, as deploy/stack and deploy/load start it; postgres: its postmaster and every backend running when
# the recording starts, which are the services' pooled connections) or else an executable's name (Gateway, MealsService, ...) that exactly one running process has. With
# benchmarks of several people on one machine, pass the PID the benchmark printed.
# Environment: PROFILE_FREQUENCY (samples per second, 499), and the NUTRITION_LOCAL_DIR of deploy/stack. The
# recording stays in .local/profile/<name>-<pid>.data for `perf report -i` (with call graphs).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$REPO_ROOT/deploy/lib/bench.sh"

TARGET=${1:?usage: deploy/bench/profile.sh NAME|PID [seconds] [top]}; SECONDS_TO_RECORD=${2:-20}; TOP=${3:-25}
FREQUENCY=${PROFILE_FREQUENCY:-499}
WORK="$LOCAL_DIR/profile"; mkdir -p "$WORK"
[[ $SECONDS_TO_RECORD =~ ^[1-9][0-9]*$ ]] || fail "seconds must be a positive number, not '$SECONDS_TO_RECORD'"
[[ $TOP =~ ^[1-9][0-9]*$ ]] || fail "top must be a positive number, not '$TOP'"

step "tools (perf from Debian's linux-perf; swift-demangle from the Swift toolchain)"
bench_tools linux-perf
command -v perf >/dev/null || fail "no perf after installing linux-perf"
if command -v swift-demangle >/dev/null; then DEMANGLE=(swift-demangle --simplified); else DEMANGLE=(cat); say "note: no swift-demangle: Swift names stay mangled"; fi
ok "perf $(perf version 2>/dev/null | cut -d' ' -f3); paranoid level $(cat /proc/sys/kernel/perf_event_paranoid) (root may attach at any level)"

step "the process to profile: $TARGET"
if [[ $TARGET =~ ^[0-9]+$ ]]; then
  PID=$TARGET
elif [ "$TARGET" = postgres ]; then
  [ -s "$PG_DATA/postmaster.pid" ] || fail "no PostgreSQL of this checkout running ($PG_DATA/postmaster.pid)"
  PID=$(head -n 1 "$PG_DATA/postmaster.pid")
elif [ -s "$RUN_DIR/$TARGET.pid" ]; then
  PID=$(cat "$RUN_DIR/$TARGET.pid")
else
  mapfile -t FOUND < <(pgrep -x "$TARGET" || true)
  [ ${#FOUND[@]} -gt 0 ] || fail "no pid file $RUN_DIR/$TARGET.pid and no process named $TARGET"
  [ ${#FOUND[@]} -eq 1 ] || fail "${#FOUND[@]} processes are named $TARGET (pids ${FOUND[*]}); pass the pid of the one to profile"
  PID=${FOUND[0]}
fi
pid_alive "$PID" || fail "process $PID is not running"
NAME=$(cat "/proc/$PID/comm")
PIDS=("$PID")
# PostgreSQL works in its backends, one process per connection below the postmaster: perf -p follows no process
# that already runs below the one it attaches to, so each is named.
[ "$TARGET" = postgres ] && mapfile -t -O 1 PIDS < <(pgrep -P "$PID" || true)
BELOW=$(( ${#PIDS[@]} - 1 ))
ok "$NAME (pid $PID$([ "$BELOW" = 0 ] || echo " and $BELOW processes below it")): $(readlink "/proc/$PID/exe" 2>/dev/null || echo "executable unknown")"

cpu_ticks() { # cpu_ticks PID...: user and system ticks of the processes (their threads, not their children), added up
  local pid
  for pid in "$@"; do awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0; done | awk '{ s += $1 } END { print s + 0 }'
}
step "recording $NAME (pid $PID) for ${SECONDS_TO_RECORD} s at $FREQUENCY samples/s"
DATA="$WORK/$NAME-$PID.data"
CPU_BEFORE=$(cpu_ticks "${PIDS[@]}")
perf record -F "$FREQUENCY" -g -p "$(IFS=,; echo "${PIDS[*]}")" -o "$DATA" -- sleep "$SECONDS_TO_RECORD" >"$WORK/record.log" 2>&1 \
  || { cat "$WORK/record.log" >&2; fail "perf record failed (did the process exit?); see $WORK/record.log"; }
CPU_AFTER=$(cpu_ticks "${PIDS[@]}")
say "$(grep -o 'Captured.*' "$WORK/record.log" || tail -n 1 "$WORK/record.log")"
awk -v b="$CPU_BEFORE" -v a="$CPU_AFTER" -v s="$SECONDS_TO_RECORD" -v t="$(getconf CLK_TCK)" -v n="${#PIDS[@]}" \
  'BEGIN { printf "    the %d process(es) used %.1f CPU seconds in the %d s (%.0f%% of one core)\n", n, (a - b) / t, s, (a - b) / t / s * 100 }'
ok "$DATA"

step "top $TOP symbols by own samples (perf report --no-children), demangled"
perf report -i "$DATA" --stdio --no-children --sort dso,symbol -g none --percent-limit 0.1 >"$WORK/report.txt" 2>/dev/null \
  || fail "perf report failed on $DATA"
grep -q -v -e '^#' -e '^$' "$WORK/report.txt" || { say "no samples: nothing ran on the CPU in the process(es) while recording"; exit 0; }
say "$(grep -m 1 '^# Samples' "$WORK/report.txt" | sed 's/^# //')"
# The rows without perf's header and its IPC columns (empty on this machine's software clock event).
grep -v -e '^#' -e '^$' "$WORK/report.txt" | sed 's/ *- *- *$//' | awk -v n="$TOP" 'NR <= n' | "${DEMANGLE[@]}" | cut -c1-220
say "call graphs: perf report -i $DATA --no-children (or --children for inclusive time)"
