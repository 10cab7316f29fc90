#!/usr/bin/env bash
# Issue 11 bulk load benchmark: COPY FROM STDIN of agent-memory rows (id
# bigint primary key, a ~200-byte task, a small jsonb, a 384-d real[]
# embedding) into cairn and a throwaway PostgreSQL 15 in one run. cairn-bench
# writes the same rows as CSV, text and binary COPY files; psql's \copy
# loads each file into a fresh table on each server (rounds times,
# alternating the servers), and the script prints the best rows/s of each
# format per server, the cairn/PostgreSQL ratio and cairn's memory.
#   bash bench/copy.sh [--rows N] [--dim D] [--rounds R] [--formats csv,text,binary] [--cairn-only]
# --cairn-only skips PostgreSQL (for the memory of a large load).
# PG_BIN overrides the PostgreSQL binaries (default /usr/lib/postgresql/15/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=100000 dim=384 rounds=1 formats=csv,text,binary pg=1
while [ $# -gt 0 ]; do
	case $1 in
	--rows) rows=$2; shift 2 ;;
	--dim) dim=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--formats) formats=$2; shift 2 ;;
	--cairn-only) pg=; shift ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done

. bench/lib.sh
pg_settings=(shared_buffers=1GB max_wal_size=8GB jit=off)
trap 'stop_pg; cleanup' EXIT

declare -A ext=([csv]=csv [text]=txt [binary]=bin)

# load addr format prints the seconds psql's \copy of the format's file
# into a new table m at addr takes.
load() {
	local host=${1%:*} port=${1##*:} t0 t1
	psql -X -q -h "$host" -p "$port" -U cairn -d cairn -v ON_ERROR_STOP=1 \
		-c "DROP TABLE IF EXISTS m" \
		-c "CREATE TABLE m (id bigint PRIMARY KEY, task text, meta jsonb, embedding real[])"
	t0=$(date +%s.%N)
	psql -X -q -h "$host" -p "$port" -U cairn -d cairn -v ON_ERROR_STOP=1 \
		-c "\\copy m FROM '$work/copy.${ext[$2]}' (FORMAT $2)"
	t1=$(date +%s.%N)
	n=$(psql -X -At -h "$host" -p "$port" -U cairn -d cairn -c "SELECT count(*) FROM m")
	if [ "$n" != "$rows" ]; then
		echo "$1: $n rows after loading $rows" >&2
		exit 1
	fi
	echo "$t1 - $t0" | bc -l
}

build
machine
echo "writing $rows rows x $dim-d as CSV, text and binary COPY files"
"$work/cairn-bench" --copy-files "$work" --rows "$rows" --dim "$dim"
ls -l "$work"/copy.* | awk '{printf "  %s %.0f MiB\n", $NF, $5/1048576}'
start_server
if [ -n "$pg" ]; then
	start_pg
	echo "PostgreSQL: $("$pg_bin/postgres" --version); settings: ${pg_settings[*]}"
fi
declare -A best
for round in $(seq "$rounds"); do
	for f in ${formats//,/ }; do
		for server in cairn ${pg:+pg}; do
			a=$addr
			[ "$server" = pg ] && a=$pg_addr
			s=$(load "$a" "$f")
			printf 'round %d %-6s %-5s %6.2f s %9.0f rows/s\n' "$round" "$f" "$server" "$s" "$(echo "$rows / $s" | bc -l)"
			k=$server/$f
			if [ -z "${best[$k]:-}" ] || [ "$(echo "$s < ${best[$k]}" | bc -l)" = 1 ]; then best[$k]=$s; fi
		done
	done
done
echo
echo "best of $rounds, $rows rows:"
for f in ${formats//,/ }; do
	c=${best[cairn/$f]}
	line=$(printf '%-6s cairn %9.0f rows/s' "$f" "$(echo "$rows / $c" | bc -l)")
	if [ -n "$pg" ]; then
		p=${best[pg/$f]}
		line+=$(printf '   PostgreSQL %9.0f rows/s   cairn/pg %5.2fx' "$(echo "$rows / $p" | bc -l)" "$(echo "$p / $c" | bc -l)")
	fi
	echo "$line"
done
server_rss
