#!/usr/bin/env bash
# `make tidy`: clang-tidy with the project's .clang-tidy over the production code (common/,
# server/, client/, bench/; the tests are left out, as is the generated embedded_migrations.cpp),
# two files at a time. Every finding is an error (WarningsAsErrors in .clang-tidy): the run fails
# and lists them, each once (a finding in a header shows up once per file that includes it).
# The compile database comes from the `tidy` preset: clang, so that clang-tidy reads the very
# flags clang would; it is configured, never built.
#
#   scripts/run-tidy.sh                  all of the production code (what CI runs)
#   scripts/run-tidy.sh FILE...          only these files (`make tidy FILES="..."`)
#   scripts/run-tidy.sh --since REV      only what changed since REV, committed or not
#                                        (`make tidy SINCE=main`)
# A whole run takes minutes of CPU; the last two are the loop while fixing or after a rebase. A
# header stands for the production .cpp files that include it, directly or through other
# headers: clang-tidy checks a header only inside a file that includes it.
set -euo pipefail
cd "$(dirname "$0")/.."

files=()
if [ "${1:-}" = "--since" ]; then
    [ $# -eq 2 ] || { echo "usage: $0 [--since REV | FILE...]" >&2; exit 2; }
    mapfile -t files < <({ git diff --name-only "$2"...HEAD; git diff --name-only HEAD; } |
        sort -u | grep -E '\.(cpp|hpp)$' || true)
    if [ ${#files[@]} -eq 0 ]; then
        echo "tidy: no C++ file changed since $2"
        exit 0
    fi
elif [ $# -gt 0 ]; then
    files=("$@")
fi

cmake --preset tidy >/dev/null
log=build/tidy/clang-tidy.log
root=$(python3 -c 'import re, sys; print(re.escape(sys.argv[1]))' "$PWD")
production="^$root/(common|server|client|bench)/"

# The regular expressions run-clang-tidy selects translation units by: the production tree, or
# the exact files asked for (each header replaced by the production files that include it).
if [ ${#files[@]} -eq 0 ]; then
    selected=("$production")
else
    mapfile -t selected < <(python3 - "$PWD" "${files[@]}" <<'EOF'
import json, os, re, sys
root, wanted = sys.argv[1], sys.argv[2:]
database = {e["file"] for e in json.load(open(f"{root}/build/tidy/compile_commands.json"))}
production = re.compile(re.escape(root) + r"/(common|server|client|bench)/")
units = sorted(f for f in database if production.match(f))
sources = {}
for top in ("common", "server", "client", "bench"):
    for folder, _, names in os.walk(f"{root}/{top}"):
        for name in names:
            if name.endswith((".cpp", ".hpp")):
                path = f"{folder}/{name}"
                sources[path] = open(path, errors="replace").read()
chosen, headers, seen = set(), set(), set()
for name in wanted:
    path = os.path.realpath(name) if os.path.isabs(name) else f"{root}/{name}"
    if path.endswith(".hpp"):
        headers.add(path)
    elif path in database and production.match(path):
        chosen.add(path)
# The files that include a header, and the files that include those, until nothing is new.
while headers:
    seen |= headers
    includes = {f'#include "{os.path.relpath(h, root)}"' for h in headers}
    found = {p for p, text in sources.items() if any(i in text for i in includes)}
    chosen |= {p for p in found if p in units}
    headers = {p for p in found if p.endswith(".hpp")} - seen
for path in sorted(chosen):
    print("^" + re.escape(path) + "$")
EOF
    )
    if [ ${#selected[@]} -eq 0 ]; then
        echo "tidy: none of the files given is production code clang-tidy can check"
        exit 0
    fi
fi

start=$SECONDS
status=0
# run-clang-tidy 14 always asks for colours: they are taken out of the log.
run-clang-tidy -p build/tidy -j 2 -quiet "${selected[@]}" 2>&1 |
    sed -ru 's/\x1b\[[0-9;]*m//g' >"$log" || status=$?
files=$(grep -c '^clang-tidy' "$log" || true)
# A finding is `FILE:LINE:COL: warning|error: ...`, or `error: ...` when clang has no place for it.
findings=$(grep -E '^(/.*: )?(warning|error):' "$log" | sort -u || true)
if [ "$status" -ne 0 ] || [ -n "$findings" ]; then
    echo "$findings"
    echo "tidy: FAILED ($(echo "$findings" | grep -c . || true) findings; full output in $log)"
    exit 1
fi
echo "tidy: clean, $files files in $((SECONDS - start)) s"
