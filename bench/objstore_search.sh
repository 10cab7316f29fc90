#!/usr/bin/env bash
# Search on a server that has never seen the table (issue 14): one cairn
# with --storage s3://... against moto_server on loopback loads N rows of
# 384-d vectors with text (cairn-bench --vector-index) and builds the HNSW
# index, then stops cleanly (its checkpoint puts every file in the
# bucket). A second cairn then starts on an empty data directory on the
# same bucket: the script prints its start-up time, the latency of its
# first top-10 (cold: it fetches what the query needs from the store),
# and the warm figures after it; then the same dataset on a server with
# the local home, for the warm comparison. Server 2 runs with the default
# visibility (each transaction first fetches other servers' commits: one
# round trip to the store), server 3 with --max-staleness 1s, which skips
# it. Needs moto_server on PATH.
#
#	bench/objstore_search.sh [--rows N] [more cairn-bench --vector-index flags, e.g. --ef 40,100]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=100000
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--rows) rows=$2; shift 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
. bench/lib.sh
build
machine

start_moto
bench=("$work/cairn-bench" --vector-index --vi-rows "$rows" ${args[@]+"${args[@]}"})

# stop_server stops the running server cleanly (SIGTERM: it checkpoints).
stop_server() {
	kill "$pid"
	wait "$pid" || true
	pid=
}

echo
echo "== server 1 (--storage, data directory A): load and index"
rm -rf "$work/data"
start_server --storage s3://cairn-bench/db
"${bench[@]}" --addr "$addr" --cairn-pid "$pid" --vi-exact-queries 1 | grep -E 'COPY|CREATE INDEX|idle'
stop_server
objects=$(curl -s "http://127.0.0.1:$port/cairn-bench?list-type=2" | grep -o '<Key>' | wc -l)
bytes=$(curl -s "http://127.0.0.1:$port/cairn-bench?list-type=2" | grep -o '<Size>[0-9]*' | cut -d'>' -f2 | paste -sd+ | bc)
echo "bucket after the clean stop: $objects objects, $((bytes / 1048576)) MiB"

# A server on an empty data directory: start-up, the cold first query,
# then warm figures; $1 names it, the rest are more server flags.
fresh_server() {
	local name=$1
	shift
	echo
	echo "== $name: --storage on an empty data directory $*: cold, then warm"
	rm -rf "$work/data"
	local t0 t1
	t0=$(date +%s.%N)
	start_server --storage s3://cairn-bench/db "$@"
	t1=$(date +%s.%N)
	echo "listening $(echo "$t1 - $t0" | bc) s after start"
	"${bench[@]}" --addr "$addr" --cairn-pid "$pid" --vi-existing | grep -v '^generated\|^vector index:'
	echo "data directory after the queries: $(du -sm "$work/data" | cut -f1) MiB"
	stop_server
}
# Every transaction first asks the store for other servers' commits (one
# round trip) unless --max-staleness lets it skip that.
fresh_server "server 2"
fresh_server "server 3" --max-staleness 1s

echo
echo "== local home (same dataset): warm figures to compare"
rm -rf "$work/data"
start_server
"${bench[@]}" --addr "$addr" --cairn-pid "$pid" --vi-exact-queries 1 | sed -n '/queries per line/,$p'
