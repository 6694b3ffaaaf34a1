#!/usr/bin/env bash
# Server CPU, context switches and syscalls per durable move, at a steady rate or saturated.
#
#   bench/load/cpu_per_move.sh [--bin DIR] [--sync full|normal] [--rate R] [--seconds S]
#                              [--games G] [--rt] [-- extra server flags]
#
# Starts arbiter-server on 127.0.0.1 (a fresh database in a temporary folder), plays arbiter-load
# against it (--rate 0: as fast as the server answers), and prints arbiter-load's figures (CPU per
# round trip by server thread, latency) and, when perf is installed, the server's context
# switches and syscalls per move over the measured seconds. --rt runs both programs SCHED_FIFO
# (chrt -f 1): on a machine shared with builds, a woken thread then runs at once instead of
# waiting behind a compiler, which makes A/B runs at a low rate repeatable (saturated runs should
# not use it: two busy real-time processes starve everything else for the run's length).
set -euo pipefail

bin=build/release/bin
sync=normal
rate=1000
seconds=15
games=50
prio=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --bin) bin=$2; shift 2 ;;
        --sync) sync=$2; shift 2 ;;
        --rate) rate=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --games) games=$2; shift 2 ;;
        --rt) prio=(chrt -f 1); shift ;;
        --) shift; break ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done

# shellcheck source=bench/load/server.sh
source "$(dirname "$0")/server.sh"
work=$(mktemp -d)
perf_pid=""
cleanup() {
    [[ -n "$perf_pid" ]] && kill -INT "$perf_pid" 2>/dev/null || true
    stop_server
    rm -rf "$work"
}
trap cleanup EXIT

start_server "$work" "${prio[@]}" -- --sync "$sync" --rate 1000000 --burst 1000000 \
    --log-level warn "$@"

warmup=2
if command -v perf >/dev/null; then
    # Counted over the measured seconds only (after the warm-up, ending before the last second).
    (sleep "$warmup"; exec timeout -s INT "$((seconds - 1))" perf stat -x, \
        -e context-switches,raw_syscalls:sys_enter -p "$server_pid" -o "$work/perf.csv") &
    perf_pid=$!
fi
rate_flag=()
[[ "$rate" != 0 ]] && rate_flag=(--rate "$rate")
"${prio[@]}" "$bin/arbiter-load" --url "ws://127.0.0.1:$port/ws" --games "$games" \
    "${rate_flag[@]}" --duration "$seconds" --warmup "$warmup" --server-pid "$server_pid" \
    --json | tee "$work/load.out" | grep -v '^{'
if [[ -n "$perf_pid" ]]; then
    wait "$perf_pid" || true
    perf_pid=""
    moves_per_s=$(grep '^{' "$work/load.out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["per_second"])')
    python3 - "$work/perf.csv" "$moves_per_s" "$((seconds - 1))" <<'PY'
import sys
counts = {}
for line in open(sys.argv[1]):
    fields = line.strip().split(",")
    if len(fields) > 2 and fields[0].replace(".", "").isdigit():
        counts[fields[2]] = float(fields[0])
moves = float(sys.argv[2]) * float(sys.argv[3])
print("  per move (perf, %.0f moves): context switches %.2f, syscalls %.1f" % (
    moves, counts.get("context-switches", 0) / moves, counts.get("raw_syscalls:sys_enter", 0) / moves))
PY
fi
