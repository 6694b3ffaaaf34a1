#!/usr/bin/env bash
# The cluster's long tests (issue 43): each scenario of tests/integration/cluster run RUNS times
# (10 by default) with ARBITER_CLUSTER_GAMES games (60 by default: 2 players and 3 spectators
# each, 300 clients), then the figures of all runs: checks passed and failed, failover (new
# owners), resume, acknowledged moves.
#
#   scripts/cluster-soak.sh [scenario ...]        scenarios: kill freeze redis sigterm postgres
#                                                 (default: all five; smoke needs no cluster)
#   RUNS=3 ARBITER_CLUSTER_GAMES=30 scripts/cluster-soak.sh kill
#
# Binaries as in the tests: ARBITER_SERVER (default build/debug-asan/bin/arbiter-server; a release
# build is faster: build/release/bin/arbiter-server) and ARBITER_TEST_POSTGRES (default
# build/debug-asan/bin/arbiter-test-postgres). Each run's output is kept in a folder whose name is
# printed first (ARBITER_CLUSTER_SOAK_DIR to choose it). Exit code 1 if any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=${RUNS:-10}
export ARBITER_CLUSTER_GAMES=${ARBITER_CLUSTER_GAMES:-60}
scenarios=("$@")
[ ${#scenarios[@]} -eq 0 ] && scenarios=(kill freeze redis sigterm postgres)
out=${ARBITER_CLUSTER_SOAK_DIR:-$(mktemp -d /tmp/arbiter-cluster-soak-XXXXXX)}
mkdir -p "$out"
echo "cluster soak: ${scenarios[*]}, $runs runs each, $ARBITER_CLUSTER_GAMES games; logs in $out"

(cd tests/integration/server && [ -d node_modules ] || npm ci --no-audit --no-fund --prefer-offline >/dev/null)

failed_runs=0
for scenario in "${scenarios[@]}"; do
    file=tests/integration/cluster/$scenario.test.mjs
    [ -f "$file" ] || { echo "no scenario $scenario ($file)" >&2; exit 2; }
    for run in $(seq 1 "$runs"); do
        log=$out/$scenario.$run.log
        start=$SECONDS
        if node --test --test-reporter=spec "$file" >"$log" 2>&1; then status=passed; else
            status=FAILED; failed_runs=$((failed_runs + 1)); fi
        echo "$scenario run $run: $status in $((SECONDS - start)) s"
        grep -h '^cluster-figures ' "$log" | sed 's/^cluster-figures //' >>"$out/$scenario.figures.jsonl"
    done
done

# The figures of every run, per scenario: min / median / max of each timing, sums of the counts.
node - "$out" "${scenarios[@]}" <<'JS'
const fs = require('node:fs');
const [dir, ...scenarios] = process.argv.slice(2);
const stat = (xs) => {
  const v = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  if (v.length === 0) return '-';
  return `${v[0]} / ${v[Math.floor((v.length - 1) / 2)]} / ${v.at(-1)}`;
};
for (const scenario of scenarios) {
  const file = `${dir}/${scenario}.figures.jsonl`;
  const runs = fs.existsSync(file)
    ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  const d = (key) => runs.map((r) => r.disrupted?.[key]);
  console.log(`\n== ${scenario}: ${runs.length} runs reported, ${runs.filter((r) => r.failed === 0).length} passed, ` +
    `${runs.filter((r) => r.failed > 0).length} failed`);
  console.log(`   checks: ${runs.reduce((n, r) => n + r.passed, 0)} passed, ${runs.reduce((n, r) => n + r.failed, 0)} failed`);
  console.log(`   games ${runs.reduce((n, r) => n + r.games, 0)}, acknowledged moves ${runs.reduce((n, r) => n + r.acks, 0)}, ` +
    `refusals ${runs.reduce((n, r) => n + r.refused, 0)}, dropped connections ${runs.reduce((n, r) => n + r.drops, 0)}`);
  for (const key of ['failoverMs', 'adoptMs', 'handoverMs', 'exitMs', 'resumeMs', 'redisDownMs', 'downMs', 'rejoinMs']) {
    if (d(key).some((x) => typeof x === 'number')) console.log(`   ${key} min / median / max: ${stat(d(key))}`);
  }
  console.log(`   run seconds min / median / max: ${stat(runs.map((r) => r.seconds))}`);
}
JS
echo
echo "cluster soak: $failed_runs failed runs"
[ "$failed_runs" -eq 0 ]
