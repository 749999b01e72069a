#!/usr/bin/env bash
# A private MariaDB for Baton's development and tests: one server per port, data under
# .tmp/mariadb/<port>/ in the repository, listening on 127.0.0.1 only. It never uses the
# Debian package's service (which stays stopped) and never touches a process it did not start.
#
#   scripts/mariadb.sh ensure-installed   install mariadb-server with apt if mariadbd is missing (root only)
#   scripts/mariadb.sh start              start (first use: initialise the data dir); prints the server URL
#   scripts/mariadb.sh stop               stop the server this script started (the PID in its pid file)
#   scripts/mariadb.sh status             running or not (exit 0 when running, 3 when stopped)
#   scripts/mariadb.sh url                print the server URL
#
# For the test runner (test/support/global-setup.ts):
#   scripts/mariadb.sh start --lease PID  as start, and registers PID as a user of the server; a server
#                                         started this way is "auto-started"
#   scripts/mariadb.sh release PID        drops PID's lease; stops an auto-started server once no live
#                                         lease is left (so parallel test runs never stop each other's
#                                         server, and a server started by hand is never stopped by tests)
#
# Account: user `baton`, password `baton` (override: BATON_MARIADB_PASSWORD), over TCP to
# 127.0.0.1, with all privileges (tests create and drop their own databases). A database
# `baton` is created for development. URL printed by start/url (stdout, nothing else there):
#   mysql://baton:baton@127.0.0.1:<port>/
# Append a database name to use it: mysql://baton:baton@127.0.0.1:3407/baton
#
# Environment: BATON_MARIADB_PORT (default 3407), BATON_MARIADB_START_TIMEOUT (seconds, default 60),
# BATON_MARIADB_ARGS (extra mariadbd options, word-split).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PORT="${BATON_MARIADB_PORT:-3407}"
START_TIMEOUT="${BATON_MARIADB_START_TIMEOUT:-60}"
DB_USER=baton
DB_PASSWORD="${BATON_MARIADB_PASSWORD:-baton}"
URL="mysql://${DB_USER}:${DB_PASSWORD}@127.0.0.1:${PORT}/"

BASE="$ROOT/.tmp/mariadb/$PORT"
DATADIR="$BASE/data"
PIDFILE="$BASE/baton-mariadbd.pid" # the PID this script launched (mariadbd writes its own elsewhere)
LOG="$BASE/mariadbd.log"
LEASES="$BASE/leases"
AUTO_MARK="$BASE/auto-started"
LOCKFILE="$ROOT/.tmp/mariadb/$PORT.lock"
SOCKET="$BASE/mariadbd.sock"
# A unix socket path must fit in 108 bytes; a deep checkout gets one in /tmp instead.
if [ "${#SOCKET}" -gt 100 ]; then
  SOCKET="${TMPDIR:-/tmp}/baton-mariadb-$PORT-$(printf '%s' "$BASE" | md5sum | cut -c1-8).sock"
fi

NAME=mariadb
SCRIPT="${BASH_SOURCE[0]}"
USAGE_LINES=2,26
PORT_ENV=BATON_MARIADB_PORT
KIND=server
LABEL=mariadbd
OURS_ARG="--datadir=$DATADIR"
READY_WHAT=answer
READY_POLL=0.2
STOP_TIMEOUT=60
RUNNING_WHERE="port $PORT"
STATUS_WHERE="data $DATADIR"
# shellcheck source=lib/private-server.sh
. "$ROOT/scripts/lib/private-server.sh"

first_cmd() { # prints the first of the given commands that exists
  local c
  for c in "$@"; do
    if command -v "$c" >/dev/null 2>&1; then command -v "$c"; return 0; fi
  done
  return 1
}

MARIADBD="$(first_cmd mariadbd /usr/sbin/mariadbd || true)"

require_installed() {
  [ -n "$MARIADBD" ] || die "mariadbd not found. Install it with: sudo scripts/mariadb.sh ensure-installed (apt-get install mariadb-server)"
  command -v mariadb-install-db >/dev/null 2>&1 || die "mariadb-install-db not found (package mariadb-server)"
  first_cmd mariadb mysql >/dev/null || die "mariadb client not found (package mariadb-client)"
  command -v flock >/dev/null 2>&1 || die "flock not found (package util-linux)"
}

cmd_ensure_installed() {
  if [ -n "$MARIADBD" ] && command -v mariadb-install-db >/dev/null 2>&1; then
    log "mariadb-server is installed ($("$MARIADBD" --version 2>/dev/null | head -n1))"
    return 0
  fi
  if [ "$(id -u)" != 0 ]; then
    die "mariadbd is not installed and this is not root. Run as root: apt-get update && apt-get install -y mariadb-server (or sudo scripts/mariadb.sh ensure-installed)"
  fi
  command -v apt-get >/dev/null 2>&1 || die "mariadbd is not installed and apt-get is not available: install MariaDB >= 10.6 by hand"
  log "installing mariadb-server with apt-get"
  apt_install_no_service mariadb-server mariadb-server
  MARIADBD="$(first_cmd mariadbd /usr/sbin/mariadbd || true)"
  require_installed
  log "installed $("$MARIADBD" --version | head -n1)"
}

client() { # SQL as root over the private socket
  "$(first_cmd mariadb mysql)" --no-defaults --protocol=socket --socket="$SOCKET" -uroot --connect-timeout=5 "$@"
}

answers() { client -N -e 'SELECT 1' >/dev/null 2>&1; }

answers() { client -N -e 'SELECT 1' >/dev/null 2>&1; }

init_datadir() {
  [ -d "$DATADIR/mysql" ] && return 0
  log "first use: initialising $DATADIR"
  local tmp="$BASE/data.init"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  local started=$SECONDS
  if ! mariadb-install-db --no-defaults --datadir="$tmp" --user="$(id -un)" \
    --auth-root-authentication-method=normal --skip-test-db --skip-name-resolve \
    >>"$LOG" 2>&1 </dev/null; then
    tail -n 30 "$LOG" >&2 || true
    die "mariadb-install-db failed (log: $LOG)"
  fi
  rm -rf "$DATADIR"
  mv "$tmp" "$DATADIR"
  log "data dir initialised in $((SECONDS - started)) s"
}

provision() {
  client <<SQL
CREATE USER IF NOT EXISTS '${DB_USER}'@'127.0.0.1' IDENTIFIED BY '${DB_PASSWORD}';
CREATE USER IF NOT EXISTS '${DB_USER}'@'localhost' IDENTIFIED BY '${DB_PASSWORD}';
ALTER USER '${DB_USER}'@'127.0.0.1' IDENTIFIED BY '${DB_PASSWORD}';
ALTER USER '${DB_USER}'@'localhost' IDENTIFIED BY '${DB_PASSWORD}';
GRANT ALL PRIVILEGES ON *.* TO '${DB_USER}'@'127.0.0.1' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO '${DB_USER}'@'localhost' WITH GRANT OPTION;
CREATE DATABASE IF NOT EXISTS baton CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
SQL
}

prepare_start() { init_datadir; }

launch() {
  log "starting mariadbd on 127.0.0.1:$PORT (data: $DATADIR, log: $LOG)"
  # shellcheck disable=SC2086
  setsid "$MARIADBD" --no-defaults --datadir="$DATADIR" --socket="$SOCKET" --port="$PORT" \
    --bind-address=127.0.0.1 --user="$(id -un)" --pid-file="$BASE/mariadbd.server.pid" \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
    --skip-name-resolve --max-connections=1000 --innodb-buffer-pool-size=256M \
    ${BATON_MARIADB_ARGS:-} </dev/null >>"$LOG" 2>&1 9>&- &
}

after_start() { provision; }

main "$@"
