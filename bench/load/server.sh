# shellcheck shell=bash
# Sourced by the bench/load scripts: an arbiter-server on 127.0.0.1 port 0 over a fresh database.
#
#   start_server WORK [PREFIX...] -- SERVER_FLAGS...
#
# starts "$bin/arbiter-server" (bin: the caller's variable; PREFIX before it, e.g. chrt -f 1)
# with its database, stdout and stderr in WORK, waits until it listens and sets server_pid and
# port; it exits the script when the server does not start. stop_server ends it (for the
# script's EXIT trap).

server_pid=""
port=""

start_server() {
    local work=$1
    shift
    local prefix=()
    while [[ $# -gt 0 && "$1" != "--" ]]; do
        prefix+=("$1")
        shift
    done
    [[ $# -gt 0 ]] && shift
    "${prefix[@]}" "${bin:?}/arbiter-server" --port 0 --db "$work/load.db" "$@" \
        >"$work/server.out" 2>"$work/server.err" &
    server_pid=$!
    for _ in $(seq 100); do
        grep -q listening "$work/server.out" 2>/dev/null && break
        sleep 0.1
    done
    port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$work/server.out" | head -1)
    if [[ -z "$port" ]]; then
        echo "the server did not start" >&2
        cat "$work/server.err" >&2
        exit 1
    fi
}

stop_server() {
    if [[ -n "$server_pid" ]]; then
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" || true
        server_pid=""
    fi
}
