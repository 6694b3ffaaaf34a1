#!/usr/bin/env bash
# Installs the Debian packages that Arbiter builds, runs and tests with. Idempotent: when every
# package is present it does nothing (no network). Root runs apt-get directly; others use sudo.
set -euo pipefail

packages=(
    build-essential cmake make pkg-config
    libboost1.81-dev libboost-program-options1.81-dev
    nlohmann-json3-dev libsqlite3-dev sqlite3 libspdlog-dev libssl-dev libjemalloc-dev libutf8proc-dev
    libsodium-dev libhiredis-dev libpq-dev
    libgtest-dev googletest libbenchmark-dev
)
case "${1:-}" in
    --test) packages+=(clang clang-tidy clang-format libclang-rt-14-dev python3 chromium fonts-noto-cjk fonts-dejavu-core stockfish fairy-stockfish openssl redis-server postgresql nginx) ;;
    "") ;;
    *) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Node.js builds the browser client and runs the JavaScript tests. Any node >= 18 with npm will
# do (some machines carry a newer one than Debian's): install Debian's only when none is there.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    missing+=(nodejs npm)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "Installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
