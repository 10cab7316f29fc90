#!/usr/bin/env bash
# Issue 2 baseline: insert and scan throughput of 100k x 384-d rows over the
# wire, next to this machine's durable write bandwidth measured in the same
# run (the ceiling for a WAL that fsyncs every commit).
#   bash bench/baseline.sh [rows]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-100000}
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/cairn" ./cmd/cairn
go build -o "$work/cairn-bench" ./cmd/cairn-bench
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -r), $(date -u +%F)"
echo "durable write bandwidth (dd 100 MiB, conv=fsync):"
dd if=/dev/zero of="$work/dd" bs=1M count=100 conv=fsync 2>&1 | tail -1
rm -f "$work/dd"
"$work/cairn" --data-dir "$work/data" --listen 127.0.0.1:0 --http off 2>"$work/log" &
pid=$!
for _ in $(seq 100); do grep -q 'postgres=' "$work/log" && break; sleep 0.1; done
addr=$(grep -o 'postgres=[0-9.:]*' "$work/log" | head -1 | cut -d= -f2)
"$work/cairn-bench" --addr "$addr" --rows "$rows" --scans 5
echo "server RSS after the run: $(ps -o rss= -p $pid | awk '{printf "%.0f MiB", $1/1024}')"
echo "data dir: $(du -sh "$work/data" | cut -f1)"
