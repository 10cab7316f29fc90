#!/usr/bin/env bash
# Issue 10 vector index benchmark: cairn's HNSW index side by side with
# PostgreSQL 15 + pgvector HNSW in one run. Starts a fresh cairn and a
# throwaway PostgreSQL cluster (initdb into the work directory, a free
# loopback port, stopped on exit), loads the same deterministic clustered
# vectors into both, times CREATE INDEX ... USING hnsw (m = 16,
# ef_construction = 64) on each, and prints top-10 and filtered top-10
# latency and recall@10 per hnsw.ef_search with the cairn/pg ratios, the
# build-time ratio and both servers' memory.
#   bash bench/vector_index.sh [--rows N] [--cairn-only] [--latent-dim L] [more cairn-bench flags, e.g. --dim 768 --ef 40,100,200 --queries 500 --filter-pct 1]
# --dim, --queries and --latent-dim stand for cairn-bench's --vi-dim, --vi-queries and
# --vi-latent-dim (L > 0: vectors on an L-d latent space projected to --dim plus small noise,
# modelling real embeddings; default 0: clusters in the full space, the hard dataset).
# --cairn-only measures cairn alone (no PostgreSQL started), for quick iterations.
# PG_BIN overrides the PostgreSQL binaries (default /usr/lib/postgresql/15/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=100000
cairn_only=
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--rows) rows=$2; shift 2 ;;
	--rows=*) rows=${1#--rows=}; shift ;;
	--cairn-only) cairn_only=1; shift ;;
	--dim | --queries | --latent-dim) args+=("--vi-${1#--}" "$2"); shift 2 ;;
	--dim=* | --queries=* | --latent-dim=*) args+=("--vi-${1#--}"); shift ;;
	*) args+=("$1"); shift ;;
	esac
done
. bench/lib.sh
pg_settings=(shared_buffers=1GB maintenance_work_mem=2GB max_parallel_maintenance_workers=1 jit=off)
trap 'stop_pg; cleanup' EXIT

# start_pg_vector starts PostgreSQL (start_pg) and prints its versions.
start_pg_vector() {
	start_pg
	echo "PostgreSQL: $("$pg_bin/postgres" --version), pgvector $(as_pg "$pg_bin/psql" -h 127.0.0.1 -p "${pg_addr#*:}" -U cairn -Atc \
		"SELECT default_version FROM pg_available_extensions WHERE name = 'vector'" cairn); settings: ${pg_settings[*]}"
}

build
machine
start_server
if [ -z "$cairn_only" ]; then
	start_pg_vector
	args+=(--pg-addr "$pg_addr" --pg-pid "$pg_pid")
fi
"$work/cairn-bench" --vector-index --addr "$addr" --cairn-pid "$pid" \
	--vi-rows "$rows" ${args[@]+"${args[@]}"}
