# Shared by the bench/*.sh scripts (source it; it is not run on its own).
# It makes a temporary work directory, builds cairn and cairn-bench into it,
# starts a fresh server on a data directory inside it, and on exit stops
# the server, waits for it to finish shutting down and only then removes
# the directory. A script that compares with PostgreSQL sets pg_settings
# after sourcing it, calls start_pg and traps 'stop_pg; cleanup' on EXIT.

work=$(mktemp -d)
pid=

# cleanup stops the server (SIGTERM: it flushes and fsyncs), waits for it
# to exit, then removes the work directory.
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# build builds cairn and cairn-bench into $work.
build() {
	go build -o "$work/cairn" ./cmd/cairn
	go build -o "$work/cairn-bench" ./cmd/cairn-bench
}

# machine prints a line describing this machine and the date.
machine() {
	local cpu
	cpu=$(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
	echo "machine: ${cpu:+$cpu, }$(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -r)"
	echo "date: $(date -u '+%F %T UTC')"
}

# start_server starts cairn on $work/data and a free loopback port, with
# any more flags given as arguments, and sets pid and addr.
start_server() {
	"$work/cairn" --data-dir "$work/data" --listen 127.0.0.1:0 --http off "$@" 2>"$work/log" &
	pid=$!
	for _ in $(seq 100); do grep -q 'postgres=' "$work/log" && break; sleep 0.1; done
	addr=$(grep -o 'postgres=[0-9.:]*' "$work/log" | head -1 | cut -d= -f2)
	if [ -z "$addr" ]; then
		echo "cairn did not start:" >&2
		cat "$work/log" >&2
		exit 1
	fi
}

# settle waits, up to 30 s, until the servers (the cairn processes whose
# pids it is given and the throwaway PostgreSQL's processes) use under a
# tenth of a core over half a second: what a server does after a load
# returns (cairn's merges and index builds, PostgreSQL's checkpoints)
# would otherwise run during the next server's load and count against it.
settle() {
	local pids=("$@") before after p
	if [ -f "$pgdata/postmaster.pid" ]; then
		p=$(head -1 "$pgdata/postmaster.pid")
		pids+=("$p" $(pgrep -P "$p"))
	fi
	# A process that has exited since (a PostgreSQL worker) counts 0.
	ticks() { for p in "${pids[@]}"; do awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || true; done | awk '{s += $1} END {print s + 0}'; }
	for _ in $(seq 60); do
		before=$(ticks)
		sleep 0.5
		after=$(ticks)
		[ $(( (after - before) * 20 )) -lt "$(getconf CLK_TCK)" ] && return
	done
	return 0 # busy for 30 s: go on (under set -e a last failed test ended the script)
}

# server_rss prints the server's resident memory now and at its peak.
server_rss() {
	local rss hwm
	rss=$(awk '/^VmRSS:/{printf "%.0f MiB", $2/1024}' "/proc/$pid/status" 2>/dev/null || true)
	hwm=$(awk '/^VmHWM:/{printf "%.0f MiB", $2/1024}' "/proc/$pid/status" 2>/dev/null || true)
	echo "server RSS after the run: ${rss:-unknown} (peak ${hwm:-unknown})"
}

# The throwaway PostgreSQL cluster of the side-by-side benchmarks:
# pg_bin are its binaries (PG_BIN, default PostgreSQL 15's), pgdata its
# directory in the work directory; a script sets pg_settings before
# start_pg and stops it with stop_pg (trap 'stop_pg; cleanup' EXIT).
pg_bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
pgdata=$work/pg
pg_settings=()

# as_pg runs a PostgreSQL binary, as the postgres user when we are root
# (PostgreSQL refuses to run as root).
as_pg() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# stop_pg stops the throwaway cluster if it is running.
stop_pg() {
	if [ -f "$pgdata/postmaster.pid" ]; then
		as_pg "$pg_bin/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null 2>&1 || true
	fi
}

# start_pg initdbs and starts PostgreSQL on a free loopback port with
# pg_settings, creates database cairn (owner cairn), and sets pg_addr and
# pg_pid.
start_pg() {
	local port opts=()
	if [ "$(id -u)" = 0 ]; then
		chmod 711 "$work"
		install -d -o postgres "$pgdata"
	fi
	as_pg "$pg_bin/initdb" -D "$pgdata" -U cairn --auth=trust >"$work/pg-initdb.log"
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	for s in ${pg_settings[@]+"${pg_settings[@]}"}; do opts+=(-c "$s"); done
	as_pg "$pg_bin/pg_ctl" -D "$pgdata" -l "$pgdata/log" -w start \
		-o "-h 127.0.0.1 -p $port -k $pgdata $(printf '%s ' ${opts[@]+"${opts[@]}"})" >/dev/null
	as_pg "$pg_bin/createdb" -h 127.0.0.1 -p "$port" -U cairn cairn
	pg_addr=127.0.0.1:$port
	pg_pid=$(head -1 "$pgdata/postmaster.pid")
}

# start_moto starts moto_server (an S3 server, on PATH) on a free loopback
# port with the bucket cairn-bench, stopped on exit with the server, and
# exports the AWS_* settings that point cairn at it; port is its port.
start_moto() {
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	moto_server -H 127.0.0.1 -p "$port" >"$work/moto.log" 2>&1 &
	moto=$!
	trap 'kill $moto 2>/dev/null || true; wait $moto 2>/dev/null || true; cleanup' EXIT
	for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
	curl -s -X PUT "http://127.0.0.1:$port/cairn-bench" >/dev/null
	export AWS_ENDPOINT_URL=http://127.0.0.1:$port AWS_ACCESS_KEY_ID=cairn AWS_SECRET_ACCESS_KEY=cairn AWS_REGION=us-east-1
}
