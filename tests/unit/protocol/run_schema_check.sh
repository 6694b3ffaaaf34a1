#!/bin/sh
# CTest driver of the protocol schema check: prints every sample message with protocol_samples and
# validates it with tests/schema/validate.mjs (ajv), as well as the examples of schema/protocol.md.
# Skips (exit 77, CTest SKIP_RETURN_CODE) only when node is not installed; installs the
# validator's locked dependencies (npm ci) when they are missing.
#
#   run_schema_check.sh PROTOCOL_SAMPLES SCHEMA_TEST_DIR WORK_DIR
set -u

samples=$1
schema_test_dir=$2
work_dir=$3

if ! command -v node >/dev/null 2>&1; then
    echo "SKIPPED: node is not installed, so the protocol JSON Schemas cannot be checked."
    echo "Install Node.js (>= 18) and npm to run this test."
    exit 77
fi

if [ ! -d "$schema_test_dir/node_modules/ajv" ]; then
    if ! command -v npm >/dev/null 2>&1; then
        echo "FAILED: node is installed but npm is not; cannot install ajv in $schema_test_dir"
        exit 1
    fi
    echo "installing the validator's dependencies: npm ci in $schema_test_dir"
    (cd "$schema_test_dir" && npm ci --no-audit --no-fund) || {
        echo "FAILED: npm ci in $schema_test_dir"
        exit 1
    }
fi

mkdir -p "$work_dir" || exit 1
status=0
for kind in server client client-invalid; do
    if ! "$samples" "$kind" >"$work_dir/samples-$kind.jsonl"; then
        echo "FAILED: protocol_samples $kind"
        status=1
    fi
done

validate() {
    node "$schema_test_dir/validate.mjs" "$@" || status=1
}
validate --direction server "$work_dir/samples-server.jsonl"
validate --direction client "$work_dir/samples-client.jsonl"
validate --direction client --expect-invalid "$work_dir/samples-client-invalid.jsonl"
validate --markdown "$schema_test_dir/../../schema/protocol.md"
exit $status
