#!/usr/bin/env bash
# A private PostgreSQL (Debian's 15) for the peers benchmark (bench/scenarios/peers.ts,
# graphile-worker's store): one cluster per port, initialised with initdb under
# .tmp/postgres/<port>/ in the repository, listening on 127.0.0.1 only, fsync on (the default).
# It never uses the Debian package's clusters or service and never touches a process it did not
# start. PostgreSQL refuses to run as root: as root, initdb and postgres run as the `postgres`
# user (created by the Debian package) and the data dir is theirs.
#
#   scripts/postgres.sh ensure-installed   install postgresql with apt if it is missing (root only)
#   scripts/postgres.sh start              start (first use: initdb); prints the server URL
#   scripts/postgres.sh stop               stop the server this script started (the PID in its pid file)
#   scripts/postgres.sh status             running or not (exit 0 when running, 3 when stopped), its pid
#   scripts/postgres.sh url                print the server URL
#   scripts/postgres.sh start --lease PID / release PID   as scripts/mariadb.sh (shared by test runs)
#
# Account: superuser `baton`, trust authentication (loopback only). URL printed by start/url
# (stdout, nothing else there): postgres://baton@127.0.0.1:<port>/postgres
#
# Environment: BATON_POSTGRES_PORT (default 19910), BATON_POSTGRES_START_TIMEOUT (seconds,
# default 60), BATON_POSTGRES_BIN (default /usr/lib/postgresql/15/bin), BATON_POSTGRES_ARGS
# (extra postgres options, word-split, e.g. "-c max_connections=300").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PORT="${BATON_POSTGRES_PORT:-19910}"
START_TIMEOUT="${BATON_POSTGRES_START_TIMEOUT:-60}"
PGBIN="${BATON_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
DB_USER=baton
URL="postgres://${DB_USER}@127.0.0.1:${PORT}/postgres"

BASE="$ROOT/.tmp/postgres/$PORT"
DATADIR="$BASE/data"
PIDFILE="$BASE/baton-postgres.pid"
LOG="$BASE/postgres.log"
LEASES="$BASE/leases"
AUTO_MARK="$BASE/auto-started"
LOCKFILE="$ROOT/.tmp/postgres/$PORT.lock"

NAME=postgres
SCRIPT="${BASH_SOURCE[0]}"
USAGE_LINES=2,22
PORT_ENV=BATON_POSTGRES_PORT
KIND=server
LABEL=postgres
OURS_ARG="$DATADIR"
READY_WHAT=answer
READY_POLL=0.2
STOP_TIMEOUT=60
# SIGINT is PostgreSQL's fast shutdown (clients disconnected); SIGTERM's smart one waits for every client to leave.
STOP_SIGNAL=INT
RUNNING_WHERE="port $PORT"
STATUS_WHERE="data $DATADIR"
# shellcheck source=lib/private-server.sh
. "$ROOT/scripts/lib/private-server.sh"

require_installed() {
  [ -x "$PGBIN/postgres" ] && [ -x "$PGBIN/initdb" ] || die "$PGBIN/postgres not found. Install it with: sudo scripts/postgres.sh ensure-installed (apt-get install postgresql)"
  command -v psql >/dev/null 2>&1 || die "psql not found (package postgresql-client)"
  command -v flock >/dev/null 2>&1 || die "flock not found (package util-linux)"
}

cmd_ensure_installed() {
  if [ -x "$PGBIN/postgres" ]; then
    log "postgresql is installed ($("$PGBIN/postgres" --version))"
    return 0
  fi
  [ "$(id -u)" = 0 ] || die "postgresql is not installed and this is not root. Run as root: apt-get install -y postgresql"
  apt_install_no_service postgresql postgresql
  require_installed
}

as_owner() { # runs "$@" as the data dir's owner: `postgres` when we are root, else ourselves
  if [ "$(id -u)" = 0 ]; then setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"; else "$@"; fi
}

answers() { psql -h 127.0.0.1 -p "$PORT" -U "$DB_USER" -d postgres -Atqc 'SELECT 1' >/dev/null 2>&1; }

prepare_start() {
  mkdir -p "$BASE"
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$BASE"; touch "$LOG"; chown postgres:postgres "$LOG"; fi
  [ -f "$DATADIR/PG_VERSION" ] && return 0
  log "first use: initdb $DATADIR"
  rm -rf "$DATADIR"
  as_owner "$PGBIN/initdb" -D "$DATADIR" -U "$DB_USER" --auth=trust --encoding=UTF8 --locale=C.UTF-8 >>"$LOG" 2>&1 </dev/null ||
    { tail -n 30 "$LOG" >&2; die "initdb failed (log: $LOG)"; }
}

launch() {
  log "starting postgres on 127.0.0.1:$PORT (fsync on; data: $DATADIR, log: $LOG)"
  local as=()
  if [ "$(id -u)" = 0 ]; then as=(setpriv --reuid=postgres --regid=postgres --init-groups --); fi
  # shellcheck disable=SC2086
  setsid "${as[@]}" "$PGBIN/postgres" -D "$DATADIR" -p "$PORT" -h 127.0.0.1 -k "$BASE" -c fsync=on \
    -c max_connections=200 ${BATON_POSTGRES_ARGS:-} </dev/null >>"$LOG" 2>&1 9>&- &
}

after_start() { :; }

main "$@"
