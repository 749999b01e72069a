#!/usr/bin/env bash
# A private Redis for the peers benchmark (bench/scenarios/peers.ts, BullMQ's store): one server
# per port, its configuration and data under .tmp/redis/<port>/ in the repository, listening on
# 127.0.0.1 only, with BullMQ's documented durability (AOF, fsync every second). It never uses
# the Debian package's service (which stays stopped) and never touches a process it did not start.
#
#   scripts/redis.sh ensure-installed   install redis-server with apt if it is missing (root only)
#   scripts/redis.sh start              start (waits until it answers PING); prints the server URL
#   scripts/redis.sh stop               stop the server this script started (the PID in its pid file)
#   scripts/redis.sh status             running or not (exit 0 when running, 3 when stopped), its pid
#   scripts/redis.sh url                print the server URL
#   scripts/redis.sh start --lease PID / release PID   as scripts/mariadb.sh (shared by test runs)
#
# URL printed by start/url (stdout, nothing else there): redis://127.0.0.1:<port>
#
# Environment: BATON_REDIS_PORT (default 19900), BATON_REDIS_START_TIMEOUT (seconds, default 30),
# BATON_REDIS_APPENDFSYNC (everysec, always or no; default everysec).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PORT="${BATON_REDIS_PORT:-19900}"
START_TIMEOUT="${BATON_REDIS_START_TIMEOUT:-30}"
APPENDFSYNC="${BATON_REDIS_APPENDFSYNC:-everysec}"
URL="redis://127.0.0.1:${PORT}"

BASE="$ROOT/.tmp/redis/$PORT"
DATA="$BASE/data"
CONF="$BASE/redis.conf"
PIDFILE="$BASE/baton-redis.pid"
LOG="$BASE/redis.log"
LEASES="$BASE/leases"
AUTO_MARK="$BASE/auto-started"
LOCKFILE="$ROOT/.tmp/redis/$PORT.lock"

NAME=redis
SCRIPT="${BASH_SOURCE[0]}"
USAGE_LINES=2,18
PORT_ENV=BATON_REDIS_PORT
KIND=server
LABEL=redis-server
OURS_ARG="$CONF"
READY_WHAT=answer
READY_POLL=0.1
STOP_TIMEOUT=30
RUNNING_WHERE="port $PORT"
STATUS_WHERE="data $DATA"
# shellcheck source=lib/private-server.sh
. "$ROOT/scripts/lib/private-server.sh"

require_installed() {
  command -v redis-server >/dev/null 2>&1 || die "redis-server not found. Install it with: sudo scripts/redis.sh ensure-installed (apt-get install redis-server)"
  command -v redis-cli >/dev/null 2>&1 || die "redis-cli not found (package redis-tools)"
  command -v flock >/dev/null 2>&1 || die "flock not found (package util-linux)"
}

cmd_ensure_installed() {
  if command -v redis-server >/dev/null 2>&1; then
    log "redis-server is installed ($(redis-server --version))"
    return 0
  fi
  [ "$(id -u)" = 0 ] || die "redis-server is not installed and this is not root. Run as root: apt-get install -y redis-server"
  apt_install_no_service redis-server redis-server
  require_installed
}

answers() { [ "$(redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null)" = PONG ]; }

prepare_start() {
  mkdir -p "$DATA"
  # set-proc-title no: the command line keeps $CONF, which is how is_ours knows the process.
  cat >"$CONF" <<CONF
bind 127.0.0.1
port $PORT
protected-mode yes
daemonize no
dir $DATA
logfile ""
save ""
appendonly yes
appendfsync $APPENDFSYNC
set-proc-title no
CONF
}

launch() {
  log "starting redis-server on 127.0.0.1:$PORT (appendonly yes, appendfsync $APPENDFSYNC; data: $DATA, log: $LOG)"
  setsid redis-server "$CONF" </dev/null >>"$LOG" 2>&1 9>&- &
}

after_start() { :; }

main "$@"
