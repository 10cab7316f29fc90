#!/usr/bin/env bash
# Issue 11 small queries: cairn side by side with PostgreSQL 15 in one run.
# Starts a fresh cairn and a throwaway PostgreSQL cluster (initdb into the
# work directory, a free loopback port, stopped on exit), loads the same
# table (id bigint PRIMARY KEY, path text UNIQUE, task text; --rows rows)
# into both, then
#  - cairn-bench --point-lookup: prepared p50/p99 of a lookup by id, a
#    lookup by the unique text path, UPDATE ... WHERE id = $1 and a
#    single-row INSERT (each a committed transaction), 3 rounds with the
#    servers taking turns, and the cairn/PostgreSQL ratios;
#  - pgbench -M prepared and -M simple, -c 1 and -c 4, with custom scripts (-f) of the two
#    lookups, on each server in turn, and the tps ratios.
#   bash bench/point_lookup.sh [--rows N] [--duration S]
# PG_BIN overrides the PostgreSQL binaries (default /usr/lib/postgresql/15/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=100000
duration=10
while [ $# -gt 0 ]; do
	case $1 in
	--rows) rows=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	*) echo "usage: $0 [--rows N] [--duration seconds]" >&2; exit 2 ;;
	esac
done

. bench/lib.sh
pg_settings=(shared_buffers=256MB jit=off)
trap 'stop_pg; cleanup' EXIT

build
machine
start_server
start_pg
echo "PostgreSQL: $("$pg_bin/postgres" --version); settings: ${pg_settings[*]} (fsync and synchronous_commit on, as cairn)"
"$work/cairn-bench" --point-lookup --addr "$addr" --pg-addr "$pg_addr" --rows "$rows"

# pgbench: the key is drawn uniformly from the rows loaded.
cat >"$work/by_id.sql" <<SQL
\set id random(1, $rows)
SELECT id, task FROM bench_point WHERE id = :id;
SQL
cat >"$work/by_path.sql" <<SQL
\set id random(1, $rows)
SELECT id, task FROM bench_point WHERE path = '/hivemind/sessions/' || :id;
SQL
# tps runs pgbench against host:port in protocol mode $4 and prints its
# tps.
tps() {
	local host=${1%:*} port=${1#*:}
	pgbench -n -M "$4" -h "$host" -p "$port" -U cairn -c "$2" -j "$2" -T "$duration" -f "$3" cairn 2>&1 |
		awk '/^tps = /{print $3; found=1} END{if (!found) exit 1}'
}
# Prepared statements (pgx, asyncpg, JDBC after 5 runs) and the simple
# protocol with the key in the text (psycopg2, psql, pgbench's default).
for mode in prepared simple; do
	echo
	echo "pgbench -M $mode, $duration s per run, the servers taking turns (tps)"
	printf '%-16s %8s %12s %12s %8s\n' script clients cairn postgres ratio
	for script in by_id by_path; do
		for c in 1 4; do
			ct=$(tps "$addr" "$c" "$work/$script.sql" "$mode")
			pt=$(tps "$pg_addr" "$c" "$work/$script.sql" "$mode")
			printf '%-16s %8d %12.0f %12.0f %7.2fx\n' "$script" "$c" "$ct" "$pt" "$(echo "$ct / $pt" | bc -l)"
		done
	done
done
echo "ratio: cairn tps / PostgreSQL tps (above 1: cairn is faster)"
server_rss
