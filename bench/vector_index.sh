#!/usr/bin/env bash
# Issue 10 vector index benchmark: cairn's HNSW index side by side with
# PostgreSQL 15 + pgvector HNSW in one run. Starts a fresh cairn and a
# throwaway PostgreSQL cluster (initdb into the work directory, a free
# loopback port, stopped on exit), loads the same deterministic clustered
# vectors into both, times CREATE INDEX ... USING hnsw (m = 16,
# ef_construction = 64) on each, and prints top-10 and filtered top-10
# latency and recall@10 per hnsw.ef_search with the cairn/pg ratios, the
# build-time ratio and both servers' memory.
#   bash bench/vector_index.sh [--rows N] [more cairn-bench flags, e.g. --dim 768 --ef 40,100,200 --queries 500 --filter-pct 1]
# --dim and --queries stand for cairn-bench's --vi-dim and --vi-queries.
# PG_BIN overrides the PostgreSQL binaries (default /usr/lib/postgresql/15/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=100000
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--rows) rows=$2; shift 2 ;;
	--rows=*) rows=${1#--rows=}; shift ;;
	--dim | --queries) args+=("--vi-${1#--}" "$2"); shift 2 ;;
	--dim=* | --queries=*) args+=("--vi-${1#--}"); shift ;;
	*) args+=("$1"); shift ;;
	esac
done
pg_bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
pg_settings=(shared_buffers=1GB maintenance_work_mem=2GB max_parallel_maintenance_workers=1 jit=off)

. bench/lib.sh
pgdata=$work/pg

# as_pg runs a PostgreSQL binary, as the postgres user when we are root
# (PostgreSQL refuses to run as root).
as_pg() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# stop_pg stops the throwaway cluster if it is running.
stop_pg() {
	if [ -f "$pgdata/postmaster.pid" ]; then
		as_pg "$pg_bin/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null 2>&1 || true
	fi
}
trap 'stop_pg; cleanup' EXIT

# start_pg initdbs and starts PostgreSQL on a free loopback port with the
# benchmark's settings, creates database cairn (owner cairn), and sets
# pg_addr and pg_pid.
start_pg() {
	local port opts=()
	if [ "$(id -u)" = 0 ]; then
		chmod 711 "$work"
		install -d -o postgres "$pgdata"
	fi
	as_pg "$pg_bin/initdb" -D "$pgdata" -U cairn --auth=trust >"$work/pg-initdb.log"
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	for s in "${pg_settings[@]}"; do opts+=(-c "$s"); done
	as_pg "$pg_bin/pg_ctl" -D "$pgdata" -l "$pgdata/log" -w start \
		-o "-h 127.0.0.1 -p $port -k $pgdata $(printf '%s ' "${opts[@]}")" >/dev/null
	as_pg "$pg_bin/createdb" -h 127.0.0.1 -p "$port" -U cairn cairn
	pg_addr=127.0.0.1:$port
	pg_pid=$(head -1 "$pgdata/postmaster.pid")
	echo "PostgreSQL: $("$pg_bin/postgres" --version), pgvector $(as_pg "$pg_bin/psql" -h 127.0.0.1 -p "$port" -U cairn -Atc \
		"SELECT default_version FROM pg_available_extensions WHERE name = 'vector'" cairn); settings: ${pg_settings[*]}"
}

build
machine
start_server
start_pg
"$work/cairn-bench" --vector-index --addr "$addr" --pg-addr "$pg_addr" --cairn-pid "$pid" --pg-pid "$pg_pid" \
	--vi-rows "$rows" ${args[@]+"${args[@]}"}
