#!/usr/bin/env bash
# Commit latency and throughput of cairn with its durable state on an
# object store (--storage s3://...) served by moto_server on loopback,
# beside the same run on the local data directory, then the time a server
# takes to start on an empty data directory from what the runs left in the
# bucket. Needs moto_server (pip install 'moto[server]') on PATH.
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
	"$work/cairn-bench" --commits --addr "$addr" --clients 1,8,32 --duration "$duration" --runs 3
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
