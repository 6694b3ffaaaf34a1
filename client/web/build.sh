#!/bin/sh
# Builds the browser client into client/web/dist (served by arbiter-server --web-root).
# Idempotent: installs node_modules only when missing or older than package-lock.json, and
# rebuilds only when a source is newer than dist/.
set -eu
cd "$(dirname "$0")"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --prefer-offline
fi
node build.mjs "$@"
