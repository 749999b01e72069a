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

log() { echo "[mariadb.sh] $*" >&2; }
die() { echo "[mariadb.sh] error: $*" >&2; exit 1; }

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
  # Keep the package from starting its own service: we run a private server instead.
  # policy-rc.d exit code 101 = "action forbidden" (Debian's invoke-rc.d policy interface).
  local policy=/usr/sbin/policy-rc.d added_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    added_policy=1
  fi
  local rc=0
  { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y mariadb-server </dev/null; } || rc=$?
  if [ "$added_policy" = 1 ]; then rm -f "$policy"; fi
  [ "$rc" = 0 ] || die "apt-get install mariadb-server failed (exit $rc)"
  MARIADBD="$(first_cmd mariadbd /usr/sbin/mariadbd || true)"
  require_installed
  log "installed $("$MARIADBD" --version | head -n1)"
}

# Is PID alive (not a zombie) and the mariadbd of this data dir?
is_ours() {
  local pid="$1"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  local state
  state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)"
  [ "$state" != Z ] || return 1
  tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qxF -- "--datadir=$DATADIR"
}

running_pid() { # prints the PID of our running server, or fails
  [ -f "$PIDFILE" ] || return 1
  local pid
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  is_ours "$pid" || return 1
  echo "$pid"
}

client() { # SQL as root over the private socket
  "$(first_cmd mariadb mysql)" --no-defaults --protocol=socket --socket="$SOCKET" -uroot --connect-timeout=5 "$@"
}

answers() { client -N -e 'SELECT 1' >/dev/null 2>&1; }

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

with_lock() { # runs "$@" holding the per-port lock (parallel test runs, parallel developers)
  mkdir -p "$ROOT/.tmp/mariadb"
  exec 9>"$LOCKFILE"
  flock -w 180 9 || die "could not take $LOCKFILE within 180 s"
  "$@"
  exec 9>&-
}

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

prune_leases() {
  mkdir -p "$LEASES"
  local f
  for f in "$LEASES"/*; do
    [ -e "$f" ] || continue
    kill -0 "$(basename "$f")" 2>/dev/null || rm -f "$f"
  done
}

live_leases() { prune_leases; find "$LEASES" -mindepth 1 -maxdepth 1 | wc -l; }

do_start() {
  local lease="$1"
  mkdir -p "$BASE" "$LEASES"
  local pid
  if pid="$(running_pid)"; then
    log "already running (pid $pid, port $PORT)"
    # Started by hand now: no test run may stop it any more.
    if [ -z "$lease" ]; then rm -f "$AUTO_MARK"; fi
  else
    rm -f "$PIDFILE"
    if port_in_use; then
      die "port $PORT on 127.0.0.1 is taken by another process (not this script's server). Stop it or set BATON_MARIADB_PORT."
    fi
    init_datadir
    local started=$SECONDS log_from
    log_from=$(($(stat -c %s "$LOG" 2>/dev/null || echo 0) + 1)) # the log tail shown on failure starts here
    log "starting mariadbd on 127.0.0.1:$PORT (data: $DATADIR, log: $LOG)"
    # shellcheck disable=SC2086
    setsid "$MARIADBD" --no-defaults --datadir="$DATADIR" --socket="$SOCKET" --port="$PORT" \
      --bind-address=127.0.0.1 --user="$(id -un)" --pid-file="$BASE/mariadbd.server.pid" \
      --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
      --skip-name-resolve --max-connections=1000 --innodb-buffer-pool-size=256M \
      ${BATON_MARIADB_ARGS:-} </dev/null >>"$LOG" 2>&1 9>&- &
    # (9>&-: the server must not inherit the lock's descriptor, or it would hold the lock.)
    pid=$!
    echo "$pid" >"$PIDFILE"
    until answers; do
      if ! kill -0 "$pid" 2>/dev/null; then
        rm -f "$PIDFILE"
        echo "---- last lines of $LOG ----" >&2
        tail -c "+$log_from" "$LOG" | tail -n 40 >&2 || true
        die "mariadbd (pid $pid) exited during start-up"
      fi
      if [ $((SECONDS - started)) -ge "$START_TIMEOUT" ]; then
        echo "---- last lines of $LOG ----" >&2
        tail -c "+$log_from" "$LOG" | tail -n 40 >&2 || true
        kill -TERM "$pid" 2>/dev/null || true
        rm -f "$PIDFILE"
        die "mariadbd (pid $pid) did not answer within ${START_TIMEOUT} s; stopped it"
      fi
      sleep 0.2
    done
    log "up in $((SECONDS - started)) s (pid $pid)"
    if [ -n "$lease" ]; then touch "$AUTO_MARK"; else rm -f "$AUTO_MARK"; fi
  fi
  provision
  if [ -n "$lease" ]; then
    [[ "$lease" =~ ^[0-9]+$ ]] || die "--lease needs a PID"
    touch "$LEASES/$lease"
  fi
  echo "$URL"
}

do_stop() {
  local pid
  if [ ! -f "$PIDFILE" ]; then
    log "not running (no pid file)"
    return 0
  fi
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  if ! is_ours "$pid"; then
    log "not running (stale pid file with pid '$pid', which is not this server; removed)"
    rm -f "$PIDFILE" "$AUTO_MARK"
    return 0
  fi
  log "stopping mariadbd (pid $pid)"
  kill -TERM "$pid"
  local waited=0
  while is_ours "$pid"; do
    if [ "$waited" -ge 600 ]; then # 60 s
      log "pid $pid still alive after 60 s: sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  rm -f "$PIDFILE" "$AUTO_MARK"
  rm -rf "$LEASES"
  log "stopped"
}

do_release() {
  local lease="$1"
  [[ "$lease" =~ ^[0-9]+$ ]] || die "release needs a PID"
  rm -f "$LEASES/$lease"
  if ! running_pid >/dev/null; then return 0; fi
  if [ ! -f "$AUTO_MARK" ]; then
    log "leaving the server running (it was not started by a test run)"
    return 0
  fi
  local n
  n="$(live_leases)"
  if [ "$n" -gt 0 ]; then
    log "leaving the server running ($n other test run(s) use it)"
    return 0
  fi
  do_stop
}

cmd_status() {
  local pid
  if pid="$(running_pid)"; then
    local how="started by hand"
    if [ -f "$AUTO_MARK" ]; then how="auto-started by a test run, $(live_leases) live lease(s)"; fi
    echo "running: pid $pid, $URL ($how), data $DATADIR"
    return 0
  fi
  echo "stopped (port $PORT, data $DATADIR)"
  return 3
}

usage() {
  sed -n '2,26p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

main() {
  local cmd="${1:-}"
  shift || true
  case "$cmd" in
    ensure-installed) cmd_ensure_installed ;;
    start)
      local lease=""
      if [ "${1:-}" = --lease ]; then lease="${2:-}"; [ -n "$lease" ] || die "--lease needs a PID"; fi
      require_installed
      with_lock do_start "$lease"
      ;;
    stop) with_lock do_stop ;;
    release) with_lock do_release "${1:-}" ;;
    status) cmd_status ;;
    url) echo "$URL" ;;
    *) usage ;;
  esac
}

main "$@"
