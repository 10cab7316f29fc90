#!/usr/bin/env bash
# Issue 11 bulk load benchmark: COPY FROM STDIN of agent-memory rows (id
# bigint primary key, a ~200-byte task, a small jsonb, a 384-d real[]
# embedding) into cairn and a throwaway PostgreSQL 15 in one run. cairn-bench
# writes the same rows as CSV, text and binary COPY files; psql's \copy
# loads each file into a fresh table on each server (rounds times,
# alternating the servers), and the script prints the best rows/s of each
# format per server, the cairn/PostgreSQL ratio and cairn's memory. Where
# pgvector is installed, PostgreSQL also loads the CSV and text rows into
# a vector(dim) embedding column (the issue's "vector" figure).
#   bash bench/copy.sh [--rows N] [--dim D] [--rounds R] [--formats csv,text,binary] [--cairn-only] [--base BIN]
# --cairn-only skips PostgreSQL (for the memory of a large load).
# --base BIN also loads into a cairn server run from BIN (a build of an
# earlier commit), in the same rounds: before and after side by side.
# PG_BIN overrides the PostgreSQL binaries (default /usr/lib/postgresql/15/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=100000 dim=384 rounds=1 formats=csv,text,binary pg=1 base=
while [ $# -gt 0 ]; do
	case $1 in
	--rows) rows=$2; shift 2 ;;
	--dim) dim=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--formats) formats=$2; shift 2 ;;
	--cairn-only) pg=; shift ;;
	--base) base=$(realpath "$2"); shift 2 ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done

. bench/lib.sh
pg_settings=(shared_buffers=1GB max_wal_size=8GB jit=off)
base_pid=
trap 'stop_pg; [ -z "$base_pid" ] || { kill "$base_pid"; wait "$base_pid"; } 2>/dev/null; cleanup' EXIT

declare -A ext=([csv]=csv [text]=txt [binary]=bin)

# cpu_ticks pid prints the CPU time (user + system, clock ticks) process
# pid used so far.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# load addr format [pid] prints the seconds psql's \copy of the format's
# file into a new table m at addr takes and, given the server's pid, the
# CPU seconds the server spent on it. With vector as the fourth argument
# the embedding column is pgvector's vector(dim), loaded from the
# format's file with the embeddings in pgvector's [...] form.
load() {
	local host=${1%:*} port=${1##*:} t0 t1 c0=0 c1=0 emb="real[]" file=$work/copy.${ext[$2]}
	if [ "${4:-}" = vector ]; then
		emb="vector($dim)" file=$work/copy-vector.${ext[$2]}
	fi
	psql -X -q -h "$host" -p "$port" -U cairn -d cairn -v ON_ERROR_STOP=1 \
		-c "DROP TABLE IF EXISTS m" \
		-c "CREATE TABLE m (id bigint PRIMARY KEY, task text, meta jsonb, embedding $emb)"
	[ -z "${3:-}" ] || c0=$(cpu_ticks "$3")
	t0=$(date +%s.%N)
	psql -X -q -h "$host" -p "$port" -U cairn -d cairn -v ON_ERROR_STOP=1 \
		-c "\\copy m FROM '$file' (FORMAT $2)"
	t1=$(date +%s.%N)
	[ -z "${3:-}" ] || c1=$(cpu_ticks "$3")
	n=$(psql -X -At -h "$host" -p "$port" -U cairn -d cairn -c "SELECT count(*) FROM m")
	if [ "$n" != "$rows" ]; then
		echo "$1: $n rows after loading $rows" >&2
		exit 1
	fi
	echo "$(echo "$t1 - $t0" | bc -l) $(echo "($c1 - $c0) / $(getconf CLK_TCK)" | bc -l)"
}

build
machine
echo "writing $rows rows x $dim-d as CSV, text and binary COPY files"
"$work/cairn-bench" --copy-files "$work" --rows "$rows" --dim "$dim"
ls -l "$work"/copy.* | awk '{printf "  %s %.0f MiB\n", $NF, $5/1048576}'
start_server
if [ -n "$base" ]; then
	"$base" --data-dir "$work/base-data" --listen 127.0.0.1:0 --http off 2>"$work/base-log" &
	base_pid=$!
	for _ in $(seq 100); do grep -q 'postgres=' "$work/base-log" && break; sleep 0.1; done
	base_addr=$(grep -o 'postgres=[0-9.:]*' "$work/base-log" | head -1 | cut -d= -f2)
	[ -n "$base_addr" ] || { echo "base cairn did not start" >&2; cat "$work/base-log" >&2; exit 1; }
	echo "base: $base"
fi
pgvec=
if [ -n "$pg" ]; then
	start_pg
	echo "PostgreSQL: $("$pg_bin/postgres" --version); settings: ${pg_settings[*]}"
	# With pgvector installed, PostgreSQL also loads the CSV and text rows
	# into a vector(dim) column (the embedding, the last field, written
	# [...] as pgvector reads it; binary vector input is another format).
	if psql -X -q -h "${pg_addr%:*}" -p "${pg_addr##*:}" -U cairn -d cairn -c "CREATE EXTENSION IF NOT EXISTS vector" 2>/dev/null; then
		pgvec=1
		sed 's/"{\([^{}]*\)}"$/"[\1]"/' "$work/copy.csv" >"$work/copy-vector.csv"
		sed 's/\t{\([^{}]*\)}$/\t[\1]/' "$work/copy.txt" >"$work/copy-vector.txt"
		echo "pgvector: $(psql -X -At -h "${pg_addr%:*}" -p "${pg_addr##*:}" -U cairn -d cairn -c "SELECT extversion FROM pg_extension WHERE extname = 'vector'")"
	else
		echo "pgvector: not installed (no vector figure)"
	fi
fi
declare -A best
for round in $(seq "$rounds"); do
	for f in ${formats//,/ }; do
		# The servers take turns in a rotating order, each load once the
		# others are idle (settle).
		servers=(${base:+base} cairn ${pg:+pg})
		[ -z "$pgvec" ] || [ "$f" = binary ] || servers+=(pgvector)
		for turn in "${!servers[@]}"; do
			server=${servers[(turn + round - 1) % ${#servers[@]}]}
			a=$addr p=$pid emb=
			[ "$server" = pg ] && a=$pg_addr p=
			[ "$server" = pgvector ] && a=$pg_addr p= emb=vector
			[ "$server" = base ] && a=$base_addr p=$base_pid
			settle $pid $base_pid
			out=$(load "$a" "$f" "$p" $emb)
			read -r s cpu <<<"$out"
			printf 'round %d %-6s %-8s %6.2f s %9.0f rows/s' "$round" "$f" "$server" "$s" "$(echo "$rows / $s" | bc -l)"
			[ -z "$p" ] && echo || printf '  server CPU %5.2f s\n' "$cpu"
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
	if [ -n "$base" ]; then
		line+=$(printf '   base %9.0f rows/s' "$(echo "$rows / ${best[base/$f]}" | bc -l)")
	fi
	if [ -n "$pg" ]; then
		p=${best[pg/$f]}
		line+=$(printf '   PostgreSQL %9.0f rows/s   cairn/pg %5.2fx' "$(echo "$rows / $p" | bc -l)" "$(echo "$p / $c" | bc -l)")
	fi
	if [ -n "${best[pgvector/$f]:-}" ]; then
		p=${best[pgvector/$f]}
		line+=$(printf '   PostgreSQL vector %9.0f rows/s   cairn/pg-vector %5.2fx' "$(echo "$rows / $p" | bc -l)" "$(echo "$p / $c" | bc -l)")
	fi
	echo "$line"
done
# The per-load figures leave out work a server does after a load returns
# (a spilled segment's text index, flushes, compactions): the whole run's
# CPU, once the servers are idle, counts it.
sleep 5
total="total server CPU over the run (loads, background work, start): cairn $(echo "$(cpu_ticks "$pid") / $(getconf CLK_TCK)" | bc -l | xargs printf '%.2f') s"
[ -z "$base" ] || total+=", base $(echo "$(cpu_ticks "$base_pid") / $(getconf CLK_TCK)" | bc -l | xargs printf '%.2f') s"
echo "$total"
server_rss
