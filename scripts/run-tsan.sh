#!/usr/bin/env bash
# `make tsan`: builds the server and the threaded test suites with ThreadSanitizer (the `tsan`
# preset) and runs the app, storage, net and engine-seat suites, the search's tests that stop it
# from another thread, and the server's Node integration tests under it. Any data race fails the run: halt_on_error stops the racing process, and every report is
# also written to build/tsan/tsan-reports/ and printed at the end. False positives in third-party
# code are suppressed in tests/tsan.supp, one documented entry each.
set -uo pipefail
cd "$(dirname "$0")/.."

cmake --preset tsan >/dev/null || exit 1
cmake --build --preset tsan --target arbiter-server net_tests app_tests storage_tests \
    engine_seat_tests engine_tests || exit 1

reports="$PWD/build/tsan/tsan-reports"
rm -rf "$reports" && mkdir -p "$reports"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tests/tsan.supp log_path=$reports/report"

failed=0
for suite in app_tests storage_tests net_tests engine_seat_tests; do
    echo "== $suite (TSan)"
    ./build/tsan/bin/$suite --gtest_brief=1 || failed=1
done
# The builtin pool lowers a running search's time cap, and stop() sets its flag, from another
# thread; the rest of engine_tests is single-threaded search (slow under TSan, nothing to find).
echo "== engine_tests, searches stopped from another thread (TSan)"
./build/tsan/bin/engine_tests --gtest_brief=1 --gtest_filter='EngineSearch.*FromAnotherThread*' ||
    failed=1
echo "== server integration tests (TSan)"
ctest --preset tsan -R '^ServerIntegration\.' || failed=1

if compgen -G "$reports/report*" >/dev/null; then
    echo "ThreadSanitizer reports:"
    cat "$reports"/report*
    failed=1
fi
[ "$failed" -eq 0 ] && echo "tsan: clean" || echo "tsan: FAILED"
exit "$failed"
