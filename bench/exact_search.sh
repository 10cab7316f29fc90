#!/usr/bin/env bash
# Issue 10's exact-search floor: an exact top-10 (no index) over N rows of
# 384-d real[] against one pass over the same vectors at this machine's
# memory bandwidth. cairn-bench writes N agent-memory rows as a binary COPY
# file; a fresh cairn loads it with psql's \copy; then, alternating, the
# floor (BenchmarkMemoryPass in sql/types/vecmath: N x 384 float32 read by
# GOMAXPROCS goroutines, the fastest of four read passes, median of its
# passes) and Q timed exact top-10 queries (psql \timing, each with the
# embedding of a random row as the query vector, after 2 warm-ups) are
# measured for the given rounds; the script prints each round's p50 and
# floor and their ratio (the issue's target: at most 1.3).
#   bash bench/exact_search.sh [--rows N] [--queries Q] [--rounds R]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=1000000 queries=20 rounds=2
while [ $# -gt 0 ]; do
	case $1 in
	--rows) rows=$2; shift 2 ;;
	--queries) queries=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done

. bench/lib.sh
build
go test -c -o "$work/vecmath.test" ./sql/types/vecmath
machine
mkdir "$work/copy"
"$work/cairn-bench" --copy-files "$work/copy" --rows "$rows" --dim 384
rm "$work/copy/copy.csv" "$work/copy/copy.txt"

start_server
host=${addr%:*} port=${addr#*:}
sql() { psql -X -q -h "$host" -p "$port" -U cairn -v ON_ERROR_STOP=1 "$@"; }
sql -c "CREATE TABLE m (id bigint PRIMARY KEY, task text, meta jsonb, embedding real[])"
start=$(date +%s.%N)
sql -c "\\copy m FROM '$work/copy/copy.bin' WITH (FORMAT binary)"
echo "binary COPY of $rows rows: $(echo "$(date +%s.%N) - $start" | bc) s"
rm "$work/copy/copy.bin"
settle "$pid"

# exact_p50 prints the median of $queries exact top-10 times in ms.
exact_p50() {
	{
		echo '\timing on'
		for i in $(seq $((queries + 2))); do
			echo "SELECT embedding AS q FROM m WHERE id = $(((RANDOM * 32768 + RANDOM) % rows + 1)) \\gset"
			echo "SELECT id FROM m ORDER BY embedding <#> :'q'::real[] DESC LIMIT 10;"
		done
	} >"$work/q.sql"
	sql -f "$work/q.sql" | awk '/^Time:/ {n++; if (n % 2 == 0 && n > 4) print $2}' | sort -n |
		awk '{t[NR] = $1} END {print t[int((NR + 1) / 2)]}'
}

# floor_ms prints BenchmarkMemoryPass's pass time in ms.
floor_ms() {
	"$work/vecmath.test" -test.run '^$' -test.bench MemoryPass -test.benchtime 10x -vecmath.floor-rows "$rows" |
		awk '/BenchmarkMemoryPass/ {for (i = 1; i <= NF; i++) if ($(i + 1) == "pass-ms") print $i}'
}

exact_p50 >/dev/null # decode and cache the column once
for r in $(seq "$rounds"); do
	floor=$(floor_ms)
	p50=$(exact_p50)
	echo "round $r: exact top-10 p50 $p50 ms, one pass at memory bandwidth $floor ms, ratio $(echo "scale=2; $p50 / $floor" | bc)"
done
server_rss
