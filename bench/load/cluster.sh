#!/usr/bin/env bash
# The cluster's throughput and latency (issue 43), beside one server on SQLite in the same run.
#
#   bench/load/cluster.sh [--bin DIR] [--games G] [--spectators-per-game S] [--seconds T]
#                         [--nodes N] [--sync full|normal] [--rate R]
#
# In one temporary folder, on 127.0.0.1 only: PostgreSQL 15 (initdb, run as the `postgres` user
# when root, fsync on), Redis 7 (pub/sub only), N arbiter-server nodes on them, and nginx with
# least_conn over the nodes, as docker/nginx-cluster.conf spreads them. arbiter-load plays G games
# through nginx with S spectators each (--by-node: every connection says hello, so that a
# spectator on the node that owns its game is timed apart from one on another node). Then the
# same load against one arbiter-server on SQLite, directly. Everything runs on this machine: the
# load tool, nginx, Redis, PostgreSQL and the nodes share its cores.
set -euo pipefail

bin=build/release/bin
games=200
spectators_per_game=4
seconds=15
nodes=3
sync=full
rate=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --bin) bin=$2; shift 2 ;;
        --games) games=$2; shift 2 ;;
        --spectators-per-game) spectators_per_game=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --nodes) nodes=$2; shift 2 ;;
        --sync) sync=$2; shift 2 ;;
        --rate) rate=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
bin=$(cd "$bin" && pwd)

work=$(mktemp -d /tmp/arbiter-cluster-bench.XXXXXX)
chmod 755 "$work"
pids=()
pg_ctl=$(ls /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -1)
pg_bin=$(dirname "$pg_ctl")
as_postgres=()
[[ $(id -u) -eq 0 ]] && as_postgres=(runuser -u postgres --)
cleanup() {
    for pid in "${pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    [[ -f "$work/pg/postmaster.pid" ]] &&
        "${as_postgres[@]}" "$pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# PostgreSQL, durable (fsync on): the acknowledged moves are on disk.
pg_port=$(free_port)
mkdir -p "$work/pg" "$work/pgsock"
[[ ${#as_postgres[@]} -gt 0 ]] && chown postgres "$work/pg" "$work/pgsock"
"${as_postgres[@]}" "$pg_bin/initdb" -D "$work/pg" -U arbiter --auth=trust -E UTF8 >/dev/null
"${as_postgres[@]}" "$pg_ctl" -D "$work/pg" -l "$work/pg/server.log" -w \
    -o "-p $pg_port -k $work/pgsock -c listen_addresses=127.0.0.1 -c max_connections=200" \
    start >/dev/null
db="postgresql://arbiter@127.0.0.1:$pg_port/postgres"

redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
    --logfile "$work/redis.log" &
pids+=($!)

flags=(--rate 1000000 --burst 1000000 --max-connections-per-address 100000
    --max-open-games 100000 --max-creates-per-minute 1000000 --log-level warn --sync "$sync")
node_ports=()
for i in $(seq "$nodes"); do
    "$bin/arbiter-server" --port 0 --db "$db" --node-id "node-$i" \
        --bus "redis://127.0.0.1:$redis_port" "${flags[@]}" \
        >"$work/node-$i.out" 2>"$work/node-$i.err" &
    pids+=($!)
done
for i in $(seq "$nodes"); do
    for _ in $(seq 100); do
        grep -q listening "$work/node-$i.out" 2>/dev/null && break
        sleep 0.1
    done
    port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$work/node-$i.out" | head -1)
    [[ -n "$port" ]] || { echo "node-$i did not start" >&2; cat "$work/node-$i.err" >&2; exit 1; }
    node_ports+=("$port")
done

nginx_port=$(free_port)
mkdir -p "$work/nginx"
{
    echo "worker_processes 1; daemon off; pid $work/nginx/nginx.pid;"
    echo "error_log $work/nginx/error.log warn;"
    echo "events { worker_connections 20000; }"
    echo "http {"
    echo "  access_log off;"
    echo "  client_body_temp_path $work/nginx/body; proxy_temp_path $work/nginx/proxy;"
    echo "  fastcgi_temp_path $work/nginx/fastcgi; uwsgi_temp_path $work/nginx/uwsgi;"
    echo "  scgi_temp_path $work/nginx/scgi;"
    echo "  map \$http_upgrade \$connection_upgrade { default upgrade; '' close; }"
    echo "  upstream arbiter { least_conn;"
    for port in "${node_ports[@]}"; do
        echo "    server 127.0.0.1:$port max_fails=1 fail_timeout=5s;"
    done
    echo "  }"
    echo "  server { listen 127.0.0.1:$nginx_port;"
    echo "    location = /ws { proxy_pass http://arbiter; proxy_http_version 1.1;"
    echo "      proxy_set_header Upgrade \$http_upgrade;"
    echo "      proxy_set_header Connection \$connection_upgrade;"
    echo "      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;"
    echo "      proxy_read_timeout 1h; proxy_send_timeout 1h; }"
    echo "  }"
    echo "}"
} >"$work/nginx/nginx.conf"
ulimit -n 65536 2>/dev/null || true
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
pids+=($!)
for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$nginx_port") 2>/dev/null && break
    sleep 0.1
done

spectators=$((games * spectators_per_game))
rate_flag=()
[[ "$rate" != 0 ]] && rate_flag=(--rate "$rate")
load=("$bin/arbiter-load" --games "$games" --spectators "$spectators" "${rate_flag[@]}"
    --duration "$seconds" --warmup 3 --threads 2)

echo "== cluster: $nodes nodes on PostgreSQL (synchronous_commit ${sync/full/on}) and Redis," \
    "through nginx (least_conn)"
# The CPU each part of the cluster spends per move, over the measured seconds.
node_pids=$(IFS=,; echo "${pids[*]:1:$nodes}")
postmaster=$(head -1 "$work/pg/postmaster.pid")
pg_pids=$(echo "$postmaster" $(pgrep -P "$postmaster") | tr ' ' ,)
nginx_pids=$(echo "${pids[-1]}" $(pgrep -P "${pids[-1]}") | tr ' ' ,)
"${load[@]}" --url "ws://127.0.0.1:$nginx_port/ws" --by-node --cpu-of "nodes=$node_pids" \
    --cpu-of "postgresql=$pg_pids" --cpu-of "redis=${pids[0]}" --cpu-of "nginx=$nginx_pids" |
    grep -v '^{'
for i in $(seq "$nodes"); do
    echo "   node-$i: $(curl -s "http://127.0.0.1:${node_ports[$((i - 1))]}/metrics" |
        grep -E '^arbiter_cluster_(forwarded|intents|deliveries_sent)_total' |
        tr '\n' ' ')"
done

echo "== one server on SQLite (--sync $sync), directly"
"$bin/arbiter-server" --port 0 --db "$work/single.db" "${flags[@]}" \
    >"$work/single.out" 2>"$work/single.err" &
single=$!
pids+=("$single")
for _ in $(seq 100); do
    grep -q listening "$work/single.out" 2>/dev/null && break
    sleep 0.1
done
single_port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$work/single.out" | head -1)
"${load[@]}" --url "ws://127.0.0.1:$single_port/ws" --server-pid "$single" | grep -v '^{'
