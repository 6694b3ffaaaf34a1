#!/usr/bin/env bash
# `make tidy`: clang-tidy with the project's .clang-tidy over the production code (common/,
# server/, client/, bench/; the tests are left out, as is the generated embedded_migrations.cpp),
# two files at a time. Every finding is an error (WarningsAsErrors in .clang-tidy): the run fails
# and lists them, each once (a finding in a header shows up once per file that includes it).
# The compile database comes from the `tidy` preset: clang, so that clang-tidy reads the very
# flags clang would; it is configured, never built.
set -euo pipefail
cd "$(dirname "$0")/.."

cmake --preset tidy >/dev/null
log=build/tidy/clang-tidy.log
root=$(python3 -c 'import re, sys; print(re.escape(sys.argv[1]))' "$PWD")
start=$SECONDS
status=0
# run-clang-tidy 14 always asks for colours: they are taken out of the log.
run-clang-tidy -p build/tidy -j 2 -quiet "^$root/(common|server|client|bench)/" 2>&1 |
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
