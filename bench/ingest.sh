#!/usr/bin/env bash
# Issue 11 §1 insert benchmark: agent-memory rows (bigserial primary key,
# a six-word task, a small jsonb, a 384-d real[] embedding) loaded with
# multi-row INSERTs (--rows-per-insert rows each, binary parameters) sent in
# pgx batches (--inserts-per-batch INSERTs per batch, one Sync: one
# transaction), by cairn-bench, into cairn and a throwaway PostgreSQL 15 in
# one run, rounds times alternating the servers; prints each round and the
# best rows/s per server. The HTTP /ingest and /query/batch figures come
# from go test ./wire -bench BenchmarkIngest.
#   bash bench/ingest.sh [--rows N] [--rounds R] [--rows-per-insert N] [--inserts-per-batch N]
# PG_BIN overrides the PostgreSQL binaries (default /usr/lib/postgresql/15/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=20000 rounds=3 per_insert=500 per_batch=4
while [ $# -gt 0 ]; do
	case $1 in
	--rows) rows=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--rows-per-insert) per_insert=$2; shift 2 ;;
	--inserts-per-batch) per_batch=$2; shift 2 ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done

. bench/lib.sh
pg_settings=(shared_buffers=1GB max_wal_size=8GB jit=off)
trap 'stop_pg; cleanup' EXIT

build
machine
start_server
start_pg
echo "PostgreSQL: $("$pg_bin/postgres" --version); settings: ${pg_settings[*]}"
echo "$rows rows x 384-d, $per_insert rows per INSERT, $per_batch INSERTs per pgx batch"
declare -A best
for round in $(seq "$rounds"); do
	for server in cairn pg; do
		a=$addr
		[ "$server" = pg ] && a=$pg_addr
		line=$("$work/cairn-bench" --addr "$a" --rows "$rows" --rows-per-insert "$per_insert" --inserts-per-batch "$per_batch" \
			--queries none --scans 0 --verify=false --explain=false | grep '^insert:')
		r=$(echo "$line" | awk '{print $(NF-1)}')
		printf 'round %d %-5s %s\n' "$round" "$server" "$line"
		if [ -z "${best[$server]:-}" ] || [ "$r" -gt "${best[$server]}" ]; then best[$server]=$r; fi
	done
done
echo
printf 'best of %d: cairn %d rows/s   PostgreSQL %d rows/s   cairn/pg %.2fx\n' "$rounds" "${best[cairn]}" "${best[pg]}" \
	"$(echo "${best[cairn]} / ${best[pg]}" | bc -l)"
server_rss
