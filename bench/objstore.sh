#!/usr/bin/env bash
# Commit latency and throughput of cairn with its durable state on an
# object store (--storage s3://...) served by moto_server on loopback,
# beside the same run on the local data directory, then the time a server
# takes to start on an empty data directory from what the runs left in the
# bucket; then three servers on the bucket: commits with the sessions
# spread over them (40001 retried), point lookups from one server and
# from three, and how long the others take to take the background work
# over after the leader is killed (kill -9) and a restarted server to
# answer again. Needs moto_server (pip install 'moto[server]') and pgbench
# on PATH.
#
#	bench/objstore.sh [duration]   (default 5s per run)
#
# S3_FLAGS adds flags to the servers on the bucket, e.g.
# S3_FLAGS='--max-staleness 200ms' to skip the catch-up with other servers
# before each statement.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
duration=${1:-5s}
build
machine

start_moto

# s3_requests prints how many requests moto_server has answered so far;
# s3_rate R0 T0 how many it answered since (R0 at time T0), per second.
s3_requests() { grep -c 'HTTP/1.1"' "$work/moto.log" || true; }
s3_rate() {
	local n secs
	n=$(( $(s3_requests) - $1 ))
	secs=$(echo "$(date +%s.%N) - $2" | bc)
	echo "moto_server answered $n requests in ${secs%.*} s ($(echo "$n / $secs" | bc) per second)"
}

for home in local s3; do
	echo
	echo "== $home"
	rm -rf "$work/data"
	if [ "$home" = s3 ]; then
		# shellcheck disable=SC2086
		start_server --storage s3://cairn-bench/db ${S3_FLAGS:-}
	else
		start_server
	fi
	r0=$(s3_requests)
	t0=$(date +%s.%N)
	"$work/cairn-bench" --commits --addr "$addr" --clients 1,8,32 --duration "$duration" --runs 3
	[ "$home" = s3 ] && s3_rate "$r0" "$t0"
	kill "$pid"
	wait "$pid" || true
	pid=
done

echo
echo "== start on an empty data directory from the bucket"
rm -rf "$work/data"
t0=$(date +%s.%N)
start_server --storage s3://cairn-bench/db
t1=$(date +%s.%N)
echo "ready in $(echo "$t1 - $t0" | bc) s; objects in the bucket: $(curl -s "http://127.0.0.1:$port/cairn-bench?list-type=2" | grep -o '<Key>' | wc -l)"
kill "$pid"
wait "$pid" || true
pid=

# start_member starts server i of the three on the bucket (data directory
# $work/s<i>, log $work/s<i>.log) and sets pids[i] and addrs[i].
pids=()
addrs=()
start_member() {
	local i=$1
	rm -f "$work/s$i.log"
	# shellcheck disable=SC2086
	"$work/cairn" --data-dir "$work/s$i" --listen 127.0.0.1:0 --http off --storage s3://cairn-bench/db ${S3_FLAGS:-} 2>"$work/s$i.log" &
	pids[i]=$!
	# (A restart reads every log object since the last checkpoint: up to
	# 4,096 of them, which moto serves at ~120 a second.)
	for _ in $(seq 600); do grep -q 'postgres=' "$work/s$i.log" && break; sleep 0.1; done
	addrs[i]=$(grep -o 'postgres=[0-9.:]*' "$work/s$i.log" | head -1 | cut -d= -f2 || true)
	if [ -z "${addrs[i]}" ]; then
		echo "server $i did not start:" >&2
		cat "$work/s$i.log" >&2
		exit 1
	fi
}
stop_members() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap 'stop_members; kill $moto 2>/dev/null || true; wait $moto 2>/dev/null || true; cleanup' EXIT

echo
echo "== three servers on the bucket"
for i in 0 1 2; do start_member "$i"; done
r0=$(s3_requests)
t0=$(date +%s.%N)
"$work/cairn-bench" --commits --addr "${addrs[0]},${addrs[1]},${addrs[2]}" --clients 1,8,32 --duration "$duration" --runs 3
s3_rate "$r0" "$t0"

echo
echo "== point lookups (pgbench -M prepared, 6 sessions in all), from one server and from three"
psql -X -q -h "${addrs[0]%:*}" -p "${addrs[0]##*:}" -U cairn -c \
	"CREATE TABLE bench_reads (id int PRIMARY KEY, task text); INSERT INTO bench_reads SELECT g, 'task ' || g FROM generate_series(1, 10000) g"
printf '\\set id random(1, 10000)\nSELECT id, task FROM bench_reads WHERE id = :id;\n' >"$work/lookup.sql"
secs=${duration%s}
lookups() { # lookups addr clients: prints the tps
	pgbench -n -M prepared -f "$work/lookup.sql" -c "$2" -j "$2" -T "$secs" -h "${1%:*}" -p "${1##*:}" -U cairn cairn 2>&1 |
		awk '/^tps/{print $3}'
}
for round in 1 2 3; do
	one=$(lookups "${addrs[1]}" 6)
	three=$( (for i in 0 1 2; do lookups "${addrs[i]}" 2 & done; wait) | awk '{s += $1} END {printf "%.0f", s}')
	echo "round $round: one server ${one%.*} lookups/s; three servers ${three} lookups/s"
done

echo
echo "== the leader killed (kill -9): the background work taken over, the server restarted"
leader=
for i in 0 1 2; do grep -q 'now leads' "$work/s$i.log" && leader=$i; done
if [ -z "$leader" ]; then
	echo "no server reported leading" >&2
	exit 1
fi
kill -9 "${pids[leader]}"
wait "${pids[leader]}" 2>/dev/null || true
t0=$(date +%s.%N)
for _ in $(seq 300); do
	if grep -q 'now leads' "$work/s$(( (leader + 1) % 3 )).log" "$work/s$(( (leader + 2) % 3 )).log"; then break; fi
	sleep 0.1
done
t1=$(date +%s.%N)
echo "another server leads $(echo "$t1 - $t0" | bc) s after the kill (the lease lasts 10 s from its last renewal, renewed every 2 s)"
t0=$(date +%s.%N)
start_member "$leader"
other=${addrs[(leader + 1) % 3]}
if ! psql -X -q -h "${addrs[leader]%:*}" -p "${addrs[leader]##*:}" -U cairn -c "SELECT count(*) FROM bench_commits" >/dev/null; then
	echo "the restarted server does not answer; its log:" >&2
	cat "$work/s$leader.log" >&2
	exit 1
fi
t1=$(date +%s.%N)
echo "the killed server restarted on its data directory and answered in $(echo "$t1 - $t0" | bc) s"
psql -X -q -h "${other%:*}" -p "${other##*:}" -U cairn -c "INSERT INTO bench_reads VALUES (0, 'after the takeover')" >/dev/null
echo "a commit on another server after the takeover: ok"
