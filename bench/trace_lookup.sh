#!/usr/bin/env bash
# Reading one agent session's events out of a large trace table: cairn side
# by side with PostgreSQL 15 in one run. Starts a fresh cairn and a
# throwaway PostgreSQL cluster, loads the same table into both (traces:
# id bigint PRIMARY KEY, session_id text, seq int, kind text, body text of
# ~300 bytes; --rows rows over --sessions sessions), times CREATE INDEX ON
# traces (session_id, seq) on each, then runs pgbench -M prepared, -c 1 and
# -c 4, with the servers taking turns, of
#  - by_session: SELECT seq, kind, body ... WHERE session_id = $1 ORDER BY seq
#  - count:      SELECT count(*) ... WHERE session_id = $1 AND kind = 'tool'
# and the same on cairn with enable_bitmapscan off (its plan before
# btree indexes answered lookups: a scan of the column), printing tps and
# the cairn/PostgreSQL ratios. The row counts of a few sessions are
# compared between the servers first.
#   bash bench/trace_lookup.sh [--rows N] [--sessions N] [--duration S]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=1000000
sessions=10000
duration=10
while [ $# -gt 0 ]; do
	case $1 in
	--rows) rows=$2; shift 2 ;;
	--sessions) sessions=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	*) echo "usage: $0 [--rows N] [--sessions N] [--duration seconds]" >&2; exit 2 ;;
	esac
done

. bench/lib.sh
pg_settings=(shared_buffers=1GB jit=off)
trap 'stop_pg; cleanup' EXIT

build
machine
start_server
start_pg
echo "PostgreSQL: $("$pg_bin/postgres" --version); settings: ${pg_settings[*]}"
echo "rows: $rows over $sessions sessions"

# q runs SQL on the server at host:port $1.
q() { psql -X -q -v ON_ERROR_STOP=1 -h "${1%:*}" -p "${1#*:}" -U cairn -d cairn -Atc "$2"; }
# ms runs SQL on $1 and prints its wall time in milliseconds.
ms() {
	local start end
	start=$(date +%s%N)
	q "$1" "$2" >/dev/null
	end=$(date +%s%N)
	echo $(( (end - start) / 1000000 ))
}

load="CREATE TABLE traces (id bigint PRIMARY KEY, session_id text NOT NULL, seq int NOT NULL, kind text, body text);
INSERT INTO traces SELECT g, 'sess-' || (g % $sessions), g / $sessions,
	(ARRAY['tool', 'message', 'thought'])[1 + g % 3],
	repeat(md5(g::text), 9) FROM generate_series(1, $rows) g"
for server in "$addr" "$pg_addr"; do
	q "$server" "$load"
	settle "$pid"
done
q "$pg_addr" "VACUUM ANALYZE traces"
printf '%-28s %10s %10s\n' "" cairn postgres
printf '%-28s %10s %10s\n' "CREATE INDEX (ms)" \
	"$(ms "$addr" "CREATE INDEX traces_session ON traces (session_id, seq)")" \
	"$(ms "$pg_addr" "CREATE INDEX traces_session ON traces (session_id, seq)")"
settle "$pid"
for s in 0 1 $((sessions / 2)) $((sessions - 1)); do
	check="SELECT count(*), sum(seq), count(*) FILTER (WHERE kind = 'tool') FROM traces WHERE session_id = 'sess-$s'"
	a=$(q "$addr" "$check")
	b=$(q "$pg_addr" "$check")
	if [ "$a" != "$b" ]; then
		echo "session sess-$s: cairn $a, PostgreSQL $b" >&2
		exit 1
	fi
done

cat >"$work/by_session.sql" <<SQL
\set s random(0, $((sessions - 1)))
SELECT seq, kind, body FROM traces WHERE session_id = 'sess-' || :s ORDER BY seq;
SQL
cat >"$work/count.sql" <<SQL
\set s random(0, $((sessions - 1)))
SELECT count(*) FROM traces WHERE session_id = 'sess-' || :s AND kind = 'tool';
SQL
# tps runs pgbench against host:port $1 with $2 clients and script $3
# (PGOPTIONS from the environment) and prints its tps.
tps() {
	pgbench -n -M prepared -h "${1%:*}" -p "${1#*:}" -U cairn -c "$2" -j "$2" -T "$duration" -f "$3" cairn 2>&1 |
		awk '/^tps = /{printf "%.0f", $3; found=1} END{if (!found) exit 1}'
}
echo
echo "pgbench -M prepared, $duration s per run, the servers taking turns (tps)"
printf '%-12s %8s %10s %10s %8s %16s\n' script clients cairn postgres ratio "cairn, no index"
for script in by_session count; do
	for c in 1 4; do
		a=$(tps "$addr" "$c" "$work/$script.sql")
		b=$(tps "$pg_addr" "$c" "$work/$script.sql")
		off=$(PGOPTIONS='-c enable_bitmapscan=off' tps "$addr" "$c" "$work/$script.sql")
		printf '%-12s %8s %10s %10s %8s %16s\n' "$script" "$c" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2fx", a/b}')" "$off"
	done
done
server_rss
