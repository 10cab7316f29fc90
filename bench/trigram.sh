#!/usr/bin/env bash
# Issue 10 substring search benchmark: `body ILIKE '%term%'` over the same
# generated text rows (sessions, steps, words, md5 ids) in cairn and in
# PostgreSQL 15 + pg_trgm in one run. Starts a fresh cairn and a throwaway
# PostgreSQL cluster, loads both, times each query with a scan, times
# CREATE INDEX ... USING gin (body gin_trgm_ops) on each, then the queries
# through the index (p50/p90/p99 and the cairn/pg ratio), and fails if any
# count differs between the four.
#   bash bench/trigram.sh [--rows N] [more cairn-bench flags, e.g. --tg-n 100]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=1000000
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--rows) rows=$2; shift 2 ;;
	--rows=*) rows=${1#--rows=}; shift ;;
	*) args+=("$1"); shift ;;
	esac
done
. bench/lib.sh
pg_settings=(shared_buffers=1GB maintenance_work_mem=2GB max_parallel_maintenance_workers=1 jit=off)
trap 'stop_pg; cleanup' EXIT

build
machine
start_server
start_pg
echo "PostgreSQL: $("$pg_bin/postgres" --version), pg_trgm $(as_pg "$pg_bin/psql" -h 127.0.0.1 -p "${pg_addr#*:}" -U cairn -Atc \
	"SELECT default_version FROM pg_available_extensions WHERE name = 'pg_trgm'" cairn); settings: ${pg_settings[*]}"
"$work/cairn-bench" --trigram --addr "$addr" --pg-addr "$pg_addr" --cairn-pid "$pid" --pg-pid "$pg_pid" \
	--tg-rows "$rows" ${args[@]+"${args[@]}"}
