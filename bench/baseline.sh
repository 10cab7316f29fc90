#!/usr/bin/env bash
# Issue 2 baseline: insert and scan throughput of 100k x 384-d rows over the
# wire, next to this machine's durable write bandwidth measured in the same
# run (the ceiling for a WAL that fsyncs every commit).
#   bash bench/baseline.sh [rows]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-100000}
. bench/lib.sh
build
machine
echo "durable write bandwidth (dd 100 MiB, conv=fsync):"
dd if=/dev/zero of="$work/dd" bs=1M count=100 conv=fsync 2>&1 | tail -1
rm -f "$work/dd"
start_server
"$work/cairn-bench" --addr "$addr" --rows "$rows" --scans 5 --queries none
server_rss
echo "data dir: $(du -sh "$work/data" | cut -f1)"
