# Shared by the bench/*.sh scripts that compare with PostgreSQL (source it
# after bench/lib.sh): a throwaway PostgreSQL 15 cluster in the work
# directory, on a free loopback port, stopped on exit.
# PG_BIN overrides the PostgreSQL binaries (default /usr/lib/postgresql/15/bin).
pg_bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
pg_settings=(shared_buffers=1GB maintenance_work_mem=2GB max_parallel_maintenance_workers=1 jit=off)

pgdata=$work/pg

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
trap 'stop_pg; cleanup' EXIT

# start_pg initdbs and starts PostgreSQL on a free loopback port with the
# benchmark's settings, creates database cairn (owner cairn), and sets
# pg_addr and pg_pid.
start_pg() {
	local port opts=()
	if [ "$(id -u)" = 0 ]; then
		chmod 711 "$work"
		install -d -o postgres "$pgdata"
	fi
	as_pg "$pg_bin/initdb" -D "$pgdata" -U cairn --auth=trust >"$work/pg-initdb.log"
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	for s in "${pg_settings[@]}"; do opts+=(-c "$s"); done
	as_pg "$pg_bin/pg_ctl" -D "$pgdata" -l "$pgdata/log" -w start \
		-o "-h 127.0.0.1 -p $port -k $pgdata $(printf '%s ' "${opts[@]}")" >/dev/null
	as_pg "$pg_bin/createdb" -h 127.0.0.1 -p "$port" -U cairn cairn
	pg_addr=127.0.0.1:$port
	pg_pid=$(head -1 "$pgdata/postmaster.pid")
	echo "PostgreSQL: $("$pg_bin/postgres" --version), extensions: $(as_pg "$pg_bin/psql" -h 127.0.0.1 -p "$port" -U cairn -Atc \
		"SELECT string_agg(name || ' ' || default_version, ', ') FROM pg_available_extensions WHERE name IN ('vector', 'pg_trgm')" cairn); settings: ${pg_settings[*]}"
}

