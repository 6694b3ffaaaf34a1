#!/usr/bin/env bash
# Live games' latency while the analysis pool is busy (issue 42), against the same with it idle.
#
#   bench/load/analysis_load.sh [--bin DIR] [--rates "1000 0"] [--seconds S] [--rounds R]
#                               [--games G] [--engine auto|builtin|stockfish] [--rt]
#                               [-- extra server flags]
#
# Starts one arbiter-server on 127.0.0.1 (a fresh database in a temporary folder; the analysis
# pool at its defaults but a queue of one, so that it drains within a game or two between runs).
# First arbiter-load plays games that end by resignation at --resign-at plies (saturated, for
# --prep-seconds): the finished games to analyse. Then, for each rate of --rates (0: saturated),
# R rounds of two arbiter-load runs of S seconds on the same server: A with the pool idle, B with
# analysis_feeder.py POSTing analyses so that the queue never drains (it waits for the pool to
# start before the run, and after it for every analysis it queued to end, so each A starts idle).
# Prints each run and a table of p50/p99 to the mover idle and busy, their ratio, the analyses
# completed and the plies analysed a second.
#
# Busy, and how busy: the feeder is refused (503, the queue of one is full) about 9 times a
# second all through each B run ("503s"), so a game always waited for the pool thread when it
# finished one; /metrics' arbiter_analysis_searches_total, sampled every 0.25 s, gives the
# positions searched in each run (none in an A run: the table says so if not) and the longest
# time without a finished search ("stall s": the pool yields to everything, so on a busy machine
# it makes little headway while it always has work).
#
# --engine auto uses Stockfish for chess when /usr/games/stockfish exists, else the builtin engine.
# --rt runs the server and arbiter-load (never the feeder, nor the analysis: the pool lowers its
# own threads and engine processes) SCHED_FIFO as bench/load/cpu_per_move.sh does; with it the
# default rates are "1000" only (two busy real-time processes would starve the machine).
set -euo pipefail

here=$(dirname "$0")
bin=build/release/bin
rates=""
seconds=8
warmup=2
rounds=2
games=50
engine=auto
resign_at=60
prep_seconds=5
prio=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --bin) bin=$2; shift 2 ;;
        --rates) rates=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --games) games=$2; shift 2 ;;
        --engine) engine=$2; shift 2 ;;
        --resign-at) resign_at=$2; shift 2 ;;
        --prep-seconds) prep_seconds=$2; shift 2 ;;
        --rt) prio=(chrt -f 1); shift ;;
        --) shift; break ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
if [[ -z "$rates" ]]; then
    if [[ ${#prio[@]} -gt 0 ]]; then rates="1000"; else rates="1000 0"; fi
fi
engine_flags=()
if [[ "$engine" == stockfish || ( "$engine" == auto && -x /usr/games/stockfish ) ]]; then
    engine_flags=(--engine stockfish=/usr/games/stockfish)
    engine=stockfish
else
    engine=builtin
fi

# shellcheck source=bench/load/server.sh
source "$here/server.sh"
work=$(mktemp -d)
feeder_pid=""
cleanup() {
    if [[ -n "$feeder_pid" ]]; then kill -TERM "$feeder_pid" 2>/dev/null || true; fi
    stop_server
    rm -rf "$work"
}
trap cleanup EXIT

start_server "$work" "${prio[@]}" -- --sync normal --rate 1000000 --burst 1000000 \
    --api-rate 1000000 --api-burst 1000000 --log-level warn --max-analysis-queue 1 \
    "${engine_flags[@]}" "$@"
url="ws://127.0.0.1:$port/ws"
searches() {
    curl -s "http://127.0.0.1:$port/metrics" | sed -n 's/^arbiter_analysis_searches_total //p'
}
echo "analysis engine: $engine; $(uptime)"

# The finished games to analyse: resigned at --resign-at plies, newest first.
"$bin/arbiter-load" --url "$url" --games "$games" --resign-at "$resign_at" \
    --duration "$prep_seconds" --warmup 0 >/dev/null
python3 - "$port" >"$work/ids" <<'PY'
import json, sys, urllib.request
before, seen = "", 0
while True:
    url = f"http://127.0.0.1:{sys.argv[1]}/api/games?status=ended&limit=200&before={before}"
    games = json.load(urllib.request.urlopen(url)).get("games", [])
    for game in games:
        print(game.get("game") or game.get("id"))
    if len(games) < 200 or seen > 5000:
        break
    seen += len(games)
    before = games[-1].get("game") or games[-1].get("id")
PY
echo "finished games to analyse: $(wc -l <"$work/ids") (resigned at ply $resign_at)"

: >"$work/runs"
run_load() {  # RATE PHASE ROUND
    local rate_flag=()
    [[ "$1" != 0 ]] && rate_flag=(--rate "$1")
    local t0 s0 t1 s1
    t0=$(date +%s.%N)
    s0=$(searches)
    "${prio[@]}" "$bin/arbiter-load" --url "$url" --games "$games" "${rate_flag[@]}" \
        --duration "$seconds" --warmup "$warmup" --server-pid "$server_pid" --json \
        >"$work/load.out"
    s1=$(searches)
    t1=$(date +%s.%N)
    echo "$1 $2 $3 $t0 $t1 $s0 $s1 $(grep '^{' "$work/load.out")" >>"$work/runs"
}

for rate in $rates; do
    for round in $(seq "$rounds"); do
        run_load "$rate" idle "$round"
        rm -f "$work/stop"
        python3 "$here/analysis_feeder.py" "$port" "$work/ids" "$work/stop" "$work/samples" \
            >"$work/feeder.out" &
        feeder_pid=$!
        started=$(searches)
        for _ in $(seq 100); do  # until the pool's first search ended
            [[ "$(searches)" != "$started" ]] && break
            sleep 0.1
        done
        run_load "$rate" busy "$round"
        touch "$work/stop"
        wait "$feeder_pid"
        feeder_pid=""
        sed -i "\$s/\$/ $(cat "$work/feeder.out")/" "$work/runs"
    done
done
echo "after the runs: $(uptime)"

python3 - "$work/runs" "$work/samples" "$engine" <<'PY'
import json, statistics, sys

samples = [tuple(map(float, line.split())) for line in open(sys.argv[2])]
runs = []
for line in open(sys.argv[1]):
    fields = line.split(" ", 7)
    rate, phase, round_ = fields[0], fields[1], fields[2]
    t0, t1, s0, s1 = map(float, fields[3:7])
    decoder = json.JSONDecoder()
    load, end = decoder.raw_decode(fields[7])
    feeder = json.loads(fields[7][end:]) if fields[7][end:].strip() else {}
    # The longest time without a finished search inside the run (busy runs only).
    inside = [(t, s) for t, s, _ in samples if t0 <= t <= t1]
    stall, last_t, last_s = 0.0, t0, None
    for t, s in inside:
        if last_s is None or s != last_s:
            stall = max(stall, t - last_t)
            last_t, last_s = t, s
    stall = max(stall, t1 - last_t) if inside else float("nan")
    refused = [r for t, _, r in samples if t0 <= t <= t1]
    runs.append(dict(rate=rate, phase=phase, round=round_, seconds=t1 - t0, searches=s1 - s0,
                     p50=load["mover_ms"][0], p99=load["mover_ms"][1], moves=load["per_second"],
                     stall=stall, full=(refused[-1] - refused[0]) if refused else 0,
                     done=feeder.get("done", 0), steal=load["machine"]["steal"]))

print(f"\n{'rate':>6} {'run':>7} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
      f"{'searches':>8} {'plies/s':>7} {'stall s':>7} {'503s':>5} {'analysed':>8}")
for r in runs:
    busy = r["phase"] == "busy"
    print(f"{r['rate']:>6} {r['phase'] + r['round']:>7} {r['moves']:8.0f} {r['p50']:7.2f} "
          f"{r['p99']:7.2f} {r['searches']:8.0f} {r['searches'] / r['seconds']:7.1f} "
          f"{r['stall'] if busy else 0:7.2f} {r['full'] if busy else 0:5.0f} "
          f"{r['done'] if busy else 0:8d}")
print(f"\n{'rate':>6} | {'idle p50/p99 ms':>16} | {'busy p50/p99 ms':>16} | {'p99 ratio':>9} | "
      f"{'analyses done':>13} | {'plies/s':>7}   ({sys.argv[3]})")
for rate in dict.fromkeys(r["rate"] for r in runs):
    idle = [r for r in runs if r["rate"] == rate and r["phase"] == "idle"]
    busy = [r for r in runs if r["rate"] == rate and r["phase"] == "busy"]
    mean = lambda rs, key: statistics.mean(r[key] for r in rs)
    ratio = mean(busy, "p99") / mean(idle, "p99")
    plies = sum(r["searches"] for r in busy) / sum(r["seconds"] for r in busy)
    idle_searches = sum(r["searches"] for r in idle)
    print(f"{'sat' if rate == '0' else rate:>6} | {mean(idle, 'p50'):7.2f} / {mean(idle, 'p99'):6.2f} | "
          f"{mean(busy, 'p50'):7.2f} / {mean(busy, 'p99'):6.2f} | {ratio:8.2f}x | "
          f"{sum(r['done'] for r in busy):13d} | {plies:7.1f}"
          + (f"   (idle runs saw {idle_searches:.0f} searches!)" if idle_searches else "")
          + ("   (a busy run without 503s!)" if min(r["full"] for r in busy) == 0 else ""))
PY
