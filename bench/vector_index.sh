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

trap 'stop_pg; cleanup' EXIT

build
machine
start_server
start_pg
echo "PostgreSQL: $("$pg_bin/postgres" --version), pgvector $(as_pg "$pg_bin/psql" -h 127.0.0.1 -p "${pg_addr#*:}" -U cairn -Atc \
	"SELECT default_version FROM pg_available_extensions WHERE name = 'vector'" cairn); settings: ${pg_settings[*]}"
"$work/cairn-bench" --vector-index --addr "$addr" --pg-addr "$pg_addr" --cairn-pid "$pid" --pg-pid "$pg_pid" \
	--vi-rows "$rows" ${args[@]+"${args[@]}"}
