#!/usr/bin/env bash
# Issue 4 search benchmark: starts a fresh server on a temporary directory,
# loads the deterministic dataset and runs the recall query mix (exact
# cosine, cosine_similarity, hybrid, filtered cosine, BM25 top-10 and a
# point lookup, each a prepared statement) for 1 and 4 concurrent clients,
# printing each query's EXPLAIN ANALYZE, a latency/qps table, the machine,
# the date and the server's memory after the run.
#   bash bench/search.sh [--rows N] [more cairn-bench flags, e.g. --n 200 --json out.json]
# Exits non-zero when a query failed or answered wrongly.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=100000
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--rows) rows=$2; shift 2 ;;
	--rows=*) rows=${1#--rows=}; shift ;;
	*) args+=("$1"); shift ;;
	esac
done
. bench/lib.sh
build
machine
start_server
status=0
"$work/cairn-bench" --addr "$addr" --rows "$rows" --scans 1 --clients 1,4 ${args[@]+"${args[@]}"} || status=$?
server_rss
exit "$status"
