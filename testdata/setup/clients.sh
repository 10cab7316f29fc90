#!/usr/bin/env bash
# Installs the real clients the tests drive, only those missing, so that
# `make test` passes on a fresh machine (Debian or Ubuntu):
#   psql                       TestPsql, TestPsqlCommands
#   SQLAlchemy with psycopg2,  TestSQLAlchemy, TestPsycopg, TestAsyncpg
#   psycopg 3, asyncpg         (Debian's packages, run by /usr/bin/python3)
#   Django                     TestDjango (Debian's python3-django)
#   javac and pgjdbc           TestJDBC
#   node-postgres              TestNodePostgres (npm, pinned by package-lock.json)
#   DuckDB (@duckdb/node-api)  TestExport/duckdb (npm, pinned by package-lock.json)
#   TypeORM and Sequelize      TestORMSchemaSync (npm, pinned by package-lock.json)
#   chromium                   TestUIBrowser (headless, driven by chromedp)
set -euo pipefail
cd "$(dirname "$0")/../.."

need=()
command -v psql >/dev/null 2>&1 || need+=(postgresql-client)
/usr/bin/python3 -c 'import sqlalchemy' >/dev/null 2>&1 || need+=(python3-sqlalchemy)
/usr/bin/python3 -c 'import psycopg2' >/dev/null 2>&1 || need+=(python3-psycopg2)
/usr/bin/python3 -c 'import psycopg' >/dev/null 2>&1 || need+=(python3-psycopg)
/usr/bin/python3 -c 'import asyncpg' >/dev/null 2>&1 || need+=(python3-asyncpg)
/usr/bin/python3 -c 'import django' >/dev/null 2>&1 || need+=(python3-django)
command -v javac >/dev/null 2>&1 || need+=(default-jdk-headless)
[ -f /usr/share/java/postgresql.jar ] || need+=(libpostgresql-jdbc-java)
command -v npm >/dev/null 2>&1 || need+=(npm)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${need[@]}"
fi

[ -d testdata/clients/node/node_modules/pg ] ||
  npm ci --prefix testdata/clients/node --no-audit --no-fund
[ -d testdata/clients/duckdb/node_modules/@duckdb/node-api ] ||
  npm ci --prefix testdata/clients/duckdb --no-audit --no-fund
[ -d testdata/clients/orm/node_modules/typeorm ] ||
  npm ci --prefix testdata/clients/orm --no-audit --no-fund
