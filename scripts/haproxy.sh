#!/usr/bin/env bash
# A private HAProxy (Debian package haproxy) in front of the Galera cluster of scripts/galera.sh
# and of several consoles, on 127.0.0.1, configuration and logs under .tmp/haproxy/. It never uses
# the Debian service and never touches a process it did not start.
#
#   scripts/haproxy.sh start     write the configuration and start; prints the database URL
#   scripts/haproxy.sh stop      stop the HAProxy this script started
#   scripts/haproxy.sh status    running or not, and each server's state (from the stats socket)
#   scripts/haproxy.sh url       print the database URL (mysql://baton:baton@127.0.0.1:<db port>/)
#   scripts/haproxy.sh console-url   print the consoles' URL (http://127.0.0.1:<console port>)
#   scripts/haproxy.sh writer    print the database node that takes connections now (node1…)
#
# Database (TCP, BATON_HAPROXY_DB_PORT, default 18340): ONE writer. Every connection goes to the
# same Galera node — `stick on dst` with a one-entry table pins all of them to the server chosen
# first (node1, then the backups in order) and keeps them there until it fails its check; there is
# no fail-back when it returns, so the connections never split over two nodes. Health check:
# scripts/lib/galera-check (an external check: wsrep_local_state = 4 Synced, Primary component,
# wsrep_ready ON) every 500 ms, down after 2 failures; a node marked down has its sessions shut
# (on-marked-down shutdown-sessions), so every client sees its connections drop at the same time
# and reconnects to the next node. A killed node is refused at once, and `option redispatch`
# moves a refused connection to the next node without waiting for the check.
#
# BATON_HAPROXY_DATABASE=replica: the same front (one writer, sticky, shutdown-sessions) before a
# primary and its replica (scripts/mariadb-replica.sh, BATON_HAPROXY_REPLICA_PORTS, default
# "18921 18922") instead of Galera; default ports 18940 (database), 18941 (stats), 18950
# (consoles). Health check scripts/lib/writable-check: up only while
# @@read_only = 0, so the replica takes no connection until the operator promotes it (`promote`
# sets read_only=OFF) — not even with the primary dead: HAProxy cannot tell a dead primary from a
# cut network, the operator can. Checked every 250 ms once down and up after one success, so the
# clients move within a quarter second of the promotion; this script need not know about it.
#
# Consoles (HTTP + websockets, BATON_HAPROXY_CONSOLE_PORT, default 18350): round robin over
# BATON_HAPROXY_CONSOLE_PORTS (default "18381 18382") with a sticky cookie (socket.io's polling
# handshake must reach the process that opened the session); a console that does not answer its
# health check within 1.5 s is skipped, and a request whose cookie names it is redispatched.
#
# Stats: http://127.0.0.1:<BATON_HAPROXY_STATS_PORT, default 18341>/ . Galera nodes:
# BATON_HAPROXY_GALERA_PORTS (default "18301 18302 18303", scripts/galera.sh's).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATABASE="${BATON_HAPROXY_DATABASE:-galera}"
# The replica front's default ports are its own (18940…), so it runs beside the Galera one.
DEFAULT_BASE=18340
[ "$DATABASE" = replica ] && DEFAULT_BASE=18940
DB_PORT="${BATON_HAPROXY_DB_PORT:-$DEFAULT_BASE}"
PORT="${BATON_HAPROXY_STATS_PORT:-$((DEFAULT_BASE + 1))}"
CONSOLE_PORT="${BATON_HAPROXY_CONSOLE_PORT:-$((DEFAULT_BASE + 10))}"
GALERA_PORTS="${BATON_HAPROXY_GALERA_PORTS:-18301 18302 18303}"
REPLICA_PORTS="${BATON_HAPROXY_REPLICA_PORTS:-18921 18922}"
CONSOLE_PORTS="${BATON_HAPROXY_CONSOLE_PORTS:-18381 18382}"
START_TIMEOUT=20
case "$DATABASE" in
  galera) DB_SERVER_PORTS="$GALERA_PORTS" DB_CHECK=galera-check DB_SERVER_TIMING="inter 500ms fastinter 250ms downinter 1s rise 2 fall 2" ;;
  replica) DB_SERVER_PORTS="$REPLICA_PORTS" DB_CHECK=writable-check DB_SERVER_TIMING="inter 500ms fastinter 250ms downinter 250ms rise 1 fall 2" ;;
  *) echo "[haproxy.sh] error: BATON_HAPROXY_DATABASE must be galera or replica (got '$DATABASE')" >&2; exit 2 ;;
esac
DB_PASSWORD="${BATON_MARIADB_PASSWORD:-baton}"
URL="mysql://baton:${DB_PASSWORD}@127.0.0.1:${DB_PORT}/"

BASE="$ROOT/.tmp/haproxy/$PORT"
CONF="$BASE/haproxy.cfg"
SOCK="$BASE/admin.sock"
PIDFILE="$BASE/baton-haproxy.pid"
LOG="$BASE/haproxy.log"
LEASES="$BASE/leases"
AUTO_MARK="$BASE/auto-started"
LOCKFILE="$ROOT/.tmp/haproxy/$PORT.lock"

NAME=haproxy
SCRIPT="${BASH_SOURCE[0]}"
USAGE_LINES=2,40
PORT_ENV=BATON_HAPROXY_STATS_PORT
KIND=proxy
LABEL=haproxy
OURS_ARG="$CONF"
READY_WHAT="answer on its stats port"
READY_POLL=0.2
STOP_TIMEOUT=10
RUNNING_WHERE="stats port $PORT"
STATUS_WHERE="config $CONF"
# shellcheck source=lib/private-server.sh
. "$ROOT/scripts/lib/private-server.sh"

HAPROXY="$(command -v haproxy || echo /usr/sbin/haproxy)"

require_installed() {
  [ -x "$HAPROXY" ] || die "haproxy not found (apt-get install haproxy)"
  command -v mariadb >/dev/null 2>&1 || die "the mariadb client is needed by the health check (apt-get install mariadb-client)"
}

cmd_ensure_installed() {
  if [ -x "$HAPROXY" ]; then log "haproxy is installed ($("$HAPROXY" -v | head -n1))"; return 0; fi
  [ "$(id -u)" = 0 ] || die "haproxy is not installed and this is not root: apt-get install -y haproxy"
  apt_install_no_service haproxy haproxy
}

answers() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

write_config() {
  mkdir -p "$BASE"
  local i=0 p servers="" consoles="" backup
  for p in $DB_SERVER_PORTS; do
    i=$((i + 1))
    backup=""
    [ "$i" -gt 1 ] && backup=" backup"
    servers="$servers    server node$i 127.0.0.1:$p check$backup"$'\n'
  done
  i=0
  for p in $CONSOLE_PORTS; do
    i=$((i + 1))
    consoles="$consoles    server console$i 127.0.0.1:$p check cookie console$i"$'\n'
  done
  cat >"$CONF" <<CFG
# Written by scripts/haproxy.sh: edit the script, not this file.
global
    maxconn 4000
    stats socket $SOCK mode 600 level admin
    # The database health check is an external program (scripts/lib/$DB_CHECK).
    external-check
    insecure-fork-wanted

defaults
    # A refused or slow connection is retried once, on another server (redispatch), after
    # min(timeout connect, 1 s): a short connect timeout keeps a dead server from costing a second.
    timeout connect 300ms
    timeout client 1h
    timeout server 1h
    timeout tunnel 1h
    retries 1
    option redispatch
    # A health check may take this long before it counts as failed (default: its interval, 500 ms).
    # A killed server refuses at once and still falls in two checks; a live one whose check a loaded
    # machine slowed is not marked down, with every session it holds shut.
    timeout check 2s

listen $DATABASE
    mode tcp
    bind 127.0.0.1:$DB_PORT
    option external-check
    external-check path "/usr/bin:/bin"
    external-check command $ROOT/scripts/lib/$DB_CHECK
    # One writer: every connection sticks to the server the first one went to, until it fails.
    stick-table type integer size 1
    stick on int(1)
    default-server $DB_SERVER_TIMING on-marked-down shutdown-sessions
$servers
listen consoles
    mode http
    bind 127.0.0.1:$CONSOLE_PORT
    balance roundrobin
    option forwardfor
    cookie BATON_CONSOLE insert indirect nocache
    option httpchk GET /api/health
    # 503 = the console lives but its database is failing over: keep sending it its sockets.
    http-check expect rstatus (200|503)
    timeout server 1h
    default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
$consoles
listen stats
    mode http
    bind 127.0.0.1:$PORT
    stats enable
    stats uri /
    stats refresh 2s
CFG
  "$HAPROXY" -c -q -f "$CONF" || die "the generated $CONF is not valid"
}

prepare_start() { write_config; }

launch() {
  log "starting haproxy: database 127.0.0.1:$DB_PORT -> $DATABASE $DB_SERVER_PORTS, consoles 127.0.0.1:$CONSOLE_PORT -> $CONSOLE_PORTS, stats :$PORT"
  setsid "$HAPROXY" -db -f "$CONF" </dev/null >>"$LOG" 2>&1 9>&- &
}

after_start() { :; }

# One command on the admin socket. socat stops waiting for the answer 0.5 s after its own input
# ends (-t's default): on a loaded machine HAProxy answered later than that once and the reply
# came back empty (CI: "no writer chosen yet" mid-burst). HAProxy closes the socket once it has
# answered, so a long -t costs nothing when it is quick.
admin() { echo "$1" | socat -t 10 - "UNIX-CONNECT:$SOCK"; }

server_states() { # "<proxy>/<server> <status>" for every server
  admin "show stat" 2>/dev/null | awk -F, '$2 != "" && $2 != "FRONTEND" && $2 != "BACKEND" && NR > 1 { print $1 "/" $2 " " $18 }'
}

case "${1:-}" in
  console-url) echo "http://127.0.0.1:$CONSOLE_PORT" ;;
  writer)
    running_pid >/dev/null || die "not running"
    # The stuck server is the stick table's only entry.
    table="$(admin "show table $DATABASE")"
    id="$(printf '%s\n' "$table" | sed -n 's/.*server_id=\([0-9]*\).*/\1/p' | head -n1)"
    [ -n "$id" ] || die "no writer chosen yet (no connection made); the stick table reads: ${table:-<empty reply>}"
    echo "node$id"
    ;;
  status)
    cmd_status && server_states
    ;;
  *) main "$@" ;;
esac
