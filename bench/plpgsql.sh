#!/usr/bin/env bash
# PL/pgSQL per-row cost: an updated_at trigger over an INSERT ... SELECT of
# --rows rows and an UPDATE of half of them, and a scan calling a PL/pgSQL
# function (IF / ELSIF, assignments, RETURN) on every row, in cairn and in a
# throwaway PostgreSQL 15 (fsync on, as cairn), --rounds rounds alternating
# the two. Prints each timing as psql's \timing gives it.
#   bash bench/plpgsql.sh [--rows N] [--rounds R]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=100000
rounds=2
while [ $# -gt 0 ]; do
	case $1 in
	--rows) rows=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	*) echo "unknown flag $1" >&2; exit 2 ;;
	esac
done
. bench/lib.sh
pg_settings=(shared_buffers=1GB jit=off)
trap 'stop_pg; cleanup' EXIT

build
machine
start_server
start_pg

# workload runs the statements against the server at $1 (host:port), in a
# fresh schema per round, printing the timed statements' times.
workload() {
	psql -X -q -v ON_ERROR_STOP=1 -h "${1%:*}" -p "${1#*:}" -U cairn cairn <<SQL | grep -o '^Time: [0-9.]* ms'
SET client_min_messages = warning;
DROP TABLE IF EXISTS plb, plb_scan CASCADE;
DROP FUNCTION IF EXISTS plb_touch() CASCADE;
DROP FUNCTION IF EXISTS plb_classify(int);
CREATE TABLE plb (id int PRIMARY KEY, v text, updated_at timestamptz);
CREATE FUNCTION plb_touch() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN NEW.updated_at := '2020-01-01'; RETURN NEW; END \$\$;
CREATE TRIGGER plb_touch BEFORE INSERT OR UPDATE ON plb FOR EACH ROW EXECUTE FUNCTION plb_touch();
CREATE FUNCTION plb_classify(n int) RETURNS text LANGUAGE plpgsql AS \$\$ DECLARE r text; BEGIN IF n % 3 = 0 THEN r := 'fizz'; ELSIF n % 5 = 0 THEN r := 'buzz'; ELSE r := 'other'; END IF; RETURN r || n; END \$\$;
CREATE TABLE plb_scan AS SELECT g AS id FROM generate_series(1, $rows) g;
\timing on
INSERT INTO plb SELECT g, g::text FROM generate_series(1, $rows) g;
UPDATE plb SET v = 'x' WHERE id <= $((rows / 2));
SELECT count(*) FROM plb_scan WHERE plb_classify(id) LIKE 'fizz%';
SQL
}

echo "PostgreSQL: $("$pg_bin/postgres" --version); $rows rows; times: trigger INSERT, trigger UPDATE of half, function scan"
for round in $(seq "$rounds"); do
	echo "round $round cairn:      $(workload "$addr" | tr '\n' ' ')"
	echo "round $round PostgreSQL: $(workload "$pg_addr" | tr '\n' ' ')"
done
