#!/usr/bin/env bash
# The server's user-space instructions per accepted move, counted by callgrind: a figure that the
# host's speed does not move, for ranking changes on a shared machine whose moves/s swing 2x
# within the hour (bench/load/README.md). All the server's threads; kernel time is
# not counted (perf puts it at about half of the server's CPU).
#
#   scripts/instructions_per_move.sh [BIN_DIR] [--games G] [--sync full|normal] [--seconds S]
#                                    [--rate R]
#
# Starts BIN_DIR/arbiter-server (default build/release/bin) under valgrind on a temporary
# database with instrumentation off, lets BIN_DIR/arbiter-load play G games (default 20) for 10 s,
# counts S seconds (default 25), and divides by arbiter_moves_accepted_total over that window.
# --rate R caps the moves at R a second (arbiter-load --rate): under valgrind the server makes
# ~600 a second, so --rate 300 counts what a move costs at about half the maximum, where the
# writer's batches hold a few moves and each batch's own work weighs more per move.
# Needs valgrind and curl; takes about S + 20 seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=build/release/bin
games=20
sync=normal
seconds=25
rate=()
while [ $# -gt 0 ]; do
    case "$1" in
    --games) games=$2; shift 2 ;;
    --sync) sync=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --rate) rate=(--rate "$2"); shift 2 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) bin=$1; shift ;;
    esac
done

work=$(mktemp -d)
server_pid=""
load_pid=""
cleanup() {
    [ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null || true
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/callgrind.out" \
    "$bin/arbiter-server" --bind 127.0.0.1 --port 0 --db "$work/db" --sync "$sync" \
    --rate 1000000 --burst 1000000 --log-level error >"$work/server.out" 2>"$work/valgrind.err" &
server_pid=$!
port=""
for _ in $(seq 300); do
    port=$(grep -o 'listening on [0-9.]*:[0-9]*' "$work/server.out" | grep -o '[0-9]*$' || true)
    [ -n "$port" ] && break
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "the server did not start under valgrind:" >&2
    cat "$work/valgrind.err" >&2
    exit 1
fi

accepted() {
    curl -sf "http://127.0.0.1:$port/metrics" | awk '/^arbiter_moves_accepted_total / {print $2}'
}

"$bin/arbiter-load" --url "ws://127.0.0.1:$port/ws" --games "$games" \
    --duration $((seconds + 20)) --warmup 0 "${rate[@]}" >"$work/load.out" 2>&1 &
load_pid=$!
sleep 10
before=$(accepted)
callgrind_control -i on "$server_pid" >/dev/null 2>&1
sleep "$seconds"
callgrind_control -i off "$server_pid" >/dev/null 2>&1
after=$(accepted)
kill "$load_pid" 2>/dev/null || true
wait "$load_pid" 2>/dev/null || true
load_pid=""
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=""

instructions=$(callgrind_annotate "$work/callgrind.out" 2>/dev/null |
    awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
moves=$((after - before))
if [ "$moves" -le 0 ] || [ -z "$instructions" ]; then
    echo "no moves counted (before $before, after $after)" >&2
    exit 1
fi
echo "$games games, $sync, ${seconds} s counted: $moves moves, $instructions instructions," \
    "$((instructions / moves)) a move"
