#!/usr/bin/env bash
# A private MariaDB primary and replica for Baton's high-availability development and tests: the
# second database topology of issue 25 (the first is scripts/galera.sh), both on 127.0.0.1, each
# with its own data dir under .tmp/mariadb-replica/<base port>/<node>/. GTID replication,
# binlog_format=ROW, semi-synchronous by default. It never uses the Debian service and never
# touches a process it did not start. Put scripts/haproxy.sh in front of it
# (BATON_HAPROXY_DATABASE=replica): it sends connections to the one server with read_only=OFF.
#
#   scripts/mariadb-replica.sh start          start the primary, then the replica (first use:
#                                             initialise both); prints the nodes' URLs
#   scripts/mariadb-replica.sh stop           stop the nodes this script started
#   scripts/mariadb-replica.sh status         each node: running or not, role, read_only,
#                                             replication and semi-sync state
#   scripts/mariadb-replica.sh url            the nodes' URLs
#   scripts/mariadb-replica.sh primary        the node (1 or 2) that is the primary now
#   scripts/mariadb-replica.sh promote        what the operator does when the primary is lost:
#                                             on the replica, apply what it received, stop
#                                             replicating, read_only=OFF. Refused while the
#                                             primary still runs (two writers)
#   scripts/mariadb-replica.sh reset          stop both and delete their data (a fresh pair)
#   scripts/mariadb-replica.sh start --lease PID / release PID   as scripts/mariadb.sh, for test runs
#   scripts/mariadb-replica.sh node N start|stop|status|url|kill|pid   one node (1 or 2)
#
# Roles: node 1 is the primary until a promotion makes the replica the primary. The former
# primary may hold commits the replica never received, so it never comes back as it was: its
# next start rebuilds it as the new primary's replica (empty data dir, a copy of the new
# primary's databases by mariadb-dump at a known GTID, replication from there). In production,
# rebuild it from a backup (mariadb-backup) instead. A replica's start returns once it caught up.
#
# Ports (BATON_REPLICA_BASE_PORT, default 18920): node N answers SQL on BASE+N.
# Semi-synchronous replication (BATON_REPLICA_SEMI_SYNC, default on): the primary answers a commit
# only once the replica has it in its relay log (wait point AFTER_SYNC: nobody sees the commit
# before that either), so a promotion loses no acknowledged commit. If the replica does not answer
# within BATON_REPLICA_SEMI_SYNC_TIMEOUT_MS (default 2000), or is not connected at all, the
# primary goes on asynchronously until it is back: then the guarantee is off. `off`: asynchronous.
# Account: user `baton`, password `baton` (BATON_MARIADB_PASSWORD), all privileges but READ_ONLY
# ADMIN (read_only must stop it), database `baton` created; `haproxy_check` (no password, no
# privilege) for the proxy's check; `repl` for replication.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BASE_PORT="${BATON_REPLICA_BASE_PORT:-18920}"
SEMI_SYNC="${BATON_REPLICA_SEMI_SYNC:-on}"
SEMI_SYNC_TIMEOUT_MS="${BATON_REPLICA_SEMI_SYNC_TIMEOUT_MS:-2000}"
DB_USER=baton
DB_PASSWORD="${BATON_MARIADB_PASSWORD:-baton}"
REPL_PASSWORD=repl
NODES=(1 2)
SELF="${BASH_SOURCE[0]}"
PAIR="$ROOT/.tmp/mariadb-replica/$BASE_PORT"
ROLE_FILE="$PAIR/primary" # the primary's node number; absent: node 1

[[ "$SEMI_SYNC" =~ ^(on|off)$ ]] || { echo "[mariadb-replica.sh] error: BATON_REPLICA_SEMI_SYNC must be on or off" >&2; exit 2; }

primary_node() { cat "$ROLE_FILE" 2>/dev/null || echo 1; }
other_node() { [ "$1" = 1 ] && echo 2 || echo 1; }

node_main() {
  local node="$1"
  shift
  [[ "$node" =~ ^[12]$ ]] || { echo "[mariadb-replica.sh] error: node must be 1 or 2 (got '$node')" >&2; exit 2; }
  PORT=$((BASE_PORT + node))
  START_TIMEOUT=60
  URL="mysql://${DB_USER}:${DB_PASSWORD}@127.0.0.1:${PORT}/"
  BASE="$PAIR/$node"
  DATADIR="$BASE/data"
  PIDFILE="$BASE/baton-mariadbd.pid"
  LOG="$BASE/mariadbd.log"
  LEASES="$BASE/leases"
  AUTO_MARK="$BASE/auto-started"
  STALE_MARK="$BASE/stale" # a former primary: rebuilt at its next start
  SEED_MARK="$BASE/unseeded" # an empty data dir: copied from the primary before replicating
  LOCKFILE="$ROOT/.tmp/mariadb-replica/$BASE_PORT-$node.lock"
  SOCKET="$BASE/mariadbd.sock"
  if [ "${#SOCKET}" -gt 100 ]; then
    SOCKET="${TMPDIR:-/tmp}/baton-replica-$PORT-$(printf '%s' "$BASE" | md5sum | cut -c1-8).sock"
  fi
  NAME=mariadb-replica
  SCRIPT="$SELF"
  USAGE_LINES=2,38
  PORT_ENV=BATON_REPLICA_BASE_PORT
  KIND="node"
  LABEL="node $node (mariadbd)"
  OURS_ARG="--datadir=$DATADIR"
  READY_WHAT=answer
  READY_POLL=0.2
  STOP_TIMEOUT=60
  RUNNING_WHERE="port $PORT"
  STATUS_WHERE="data $DATADIR"
  # shellcheck source=lib/private-server.sh
  . "$ROOT/scripts/lib/private-server.sh"

  require_installed() {
    command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || die "mariadbd not found (apt-get install mariadb-server)"
  }
  cmd_ensure_installed() { "$ROOT/scripts/mariadb.sh" ensure-installed; }

  client() { mariadb --no-defaults --protocol=socket --socket="$SOCKET" -uroot --connect-timeout=3 "$@"; }
  answers() { client -N -e 'SELECT 1' >/dev/null 2>&1; }
  is_primary() { [ "$(primary_node)" = "$node" ]; }

  prepare_start() {
    mkdir -p "$BASE"
    if [ -f "$STALE_MARK" ]; then
      log "node $node: a former primary (it may hold commits the new primary never received): rebuilding it as a replica"
      rm -rf "$DATADIR" "$STALE_MARK"
    fi
    if [ ! -d "$DATADIR/mysql" ]; then
      log "node $node: first use, initialising $DATADIR"
      rm -rf "$DATADIR"
      mariadb-install-db --no-defaults --datadir="$DATADIR" --user="$(id -un)" \
        --auth-root-authentication-method=normal --skip-test-db --skip-name-resolve >>"$LOG" 2>&1 </dev/null ||
        die "mariadb-install-db failed (log: $LOG)"
      touch "$SEED_MARK"
    fi
  }

  launch() {
    local role=replica read_only=ON
    if is_primary; then role=primary read_only=OFF; fi
    log "starting node $node as the $role on 127.0.0.1:$PORT (data: $DATADIR, log: $LOG)"
    setsid "$(command -v mariadbd || echo /usr/sbin/mariadbd)" --no-defaults --datadir="$DATADIR" --socket="$SOCKET" --port="$PORT" \
      --bind-address=127.0.0.1 --user="$(id -un)" --pid-file="$BASE/mariadbd.server.pid" \
      --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
      --skip-name-resolve --max-connections=1000 --innodb-buffer-pool-size=128M \
      --innodb-flush-log-at-trx-commit=2 \
      --server-id="$node" --log-bin=binlog --log-slave-updates=ON --binlog-format=ROW --binlog-expire-logs-seconds=86400 \
      --read-only="$read_only" --skip-slave-start --slave-net-timeout=5 \
      --rpl-semi-sync-master-timeout="$SEMI_SYNC_TIMEOUT_MS" --rpl-semi-sync-master-wait-point=AFTER_SYNC \
      --rpl-semi-sync-master-wait-no-slave=OFF </dev/null >>"$LOG" 2>&1 9>&- &
  }

  # Semi-sync is switched on or off at every start, running or not (BATON_REPLICA_SEMI_SYNC of
  # this start): the primary's side and the replica's, which only takes effect when its
  # replication (re)starts. wait_no_slave=OFF (above): with no replica connected, the primary
  # does not stall each commit for the timeout.
  semi_sync_value() { [ "$SEMI_SYNC" = on ] && echo ON || echo OFF; }

  primary_port() { echo $((BASE_PORT + $(primary_node))); }
  on_primary() { mariadb --no-defaults --protocol=tcp -h127.0.0.1 -P"$(primary_port)" -u"$DB_USER" -p"$DB_PASSWORD" --connect-timeout=3 "$@"; }

  # A new replica starts from a consistent copy of the primary's databases at a known GTID (what
  # mariadb-backup does in production), not by replaying the primary's whole binary log: that
  # holds every database tests ever created and dropped and would take minutes.
  seed_from_primary() {
    local dbs
    dbs="$(on_primary -N -e "SELECT GROUP_CONCAT(schema_name SEPARATOR ' ') FROM information_schema.schemata WHERE schema_name NOT IN ('mysql','information_schema','performance_schema','sys')")" ||
      die "node $node: cannot reach the primary (node $(primary_node)) to copy it: start it first"
    log "node $node: copying the primary's databases ($dbs)"
    # sql_log_bin=0: the copy is not this node's own history. --gtid --master-data=1: it ends
    # with the primary's GTID at the copy (gtid_slave_pos), where replication resumes.
    # shellcheck disable=SC2086
    { echo 'SET SESSION sql_log_bin = 0;'
      mariadb-dump --no-defaults --protocol=tcp -h127.0.0.1 -P"$(primary_port)" -u"$DB_USER" -p"$DB_PASSWORD" \
        --single-transaction --gtid --master-data=1 --routines --events --triggers --databases $dbs; } | client ||
      die "node $node: copying the primary failed"
    rm -f "$SEED_MARK"
  }

  after_start() {
    # Accounts are each node's own (not replicated: a copied replica has them too).
    client <<SQL
SET SESSION sql_log_bin = 0;
CREATE USER IF NOT EXISTS '${DB_USER}'@'127.0.0.1' IDENTIFIED BY '${DB_PASSWORD}';
CREATE USER IF NOT EXISTS '${DB_USER}'@'localhost' IDENTIFIED BY '${DB_PASSWORD}';
GRANT ALL PRIVILEGES ON *.* TO '${DB_USER}'@'127.0.0.1' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO '${DB_USER}'@'localhost' WITH GRANT OPTION;
REVOKE READ_ONLY ADMIN ON *.* FROM '${DB_USER}'@'127.0.0.1';
REVOKE READ_ONLY ADMIN ON *.* FROM '${DB_USER}'@'localhost';
CREATE USER IF NOT EXISTS 'haproxy_check'@'127.0.0.1';
CREATE USER IF NOT EXISTS 'repl'@'127.0.0.1' IDENTIFIED BY '${REPL_PASSWORD}';
GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1';
SQL
    if is_primary; then
      rm -f "$SEED_MARK"
      client <<SQL
CREATE DATABASE IF NOT EXISTS baton CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
SET GLOBAL rpl_semi_sync_master_enabled = $(semi_sync_value);
SQL
      return
    fi
    [ -f "$SEED_MARK" ] && seed_from_primary
    # From wherever the primary is now (a promotion moves it); GTID positions, retried every
    # second while the primary is away.
    client <<SQL
STOP SLAVE;
SET GLOBAL rpl_semi_sync_master_enabled = OFF;
SET GLOBAL rpl_semi_sync_slave_enabled = $(semi_sync_value);
CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$(primary_port), MASTER_USER='repl',
  MASTER_PASSWORD='${REPL_PASSWORD}', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1, MASTER_HEARTBEAT_PERIOD=1;
START SLAVE;
SQL
    # Started means caught up: a replica still applying a backlog makes a promotion wait for it.
    local target
    if target="$(on_primary -N -e 'SELECT @@gtid_binlog_pos' 2>/dev/null)" && [ -n "$target" ]; then
      [ "$(client -N -e "SELECT MASTER_GTID_WAIT('$target', $START_TIMEOUT)")" = 0 ] ||
        die "node $node: did not catch up with the primary ($target) within $START_TIMEOUT s: scripts/mariadb-replica.sh status"
    else
      log "node $node: the primary does not answer; replicating as soon as it does"
    fi
  }

  slave_field() { client -E -e 'SHOW SLAVE STATUS' | sed -n "s/^ *$1: //p"; }

  promote() {
    is_primary && die "node $node is the primary already"
    running_pid >/dev/null || die "node $node (the replica) is not running"
    local primary
    primary="$(primary_node)"
    if "$SELF" node "$primary" status >/dev/null 2>&1; then
      die "the primary (node $primary) still runs: stop or kill it first, or there would be two writers"
    fi
    local started received
    started=$(date +%s%N)
    # Apply everything the replica received (in semi-sync: every commit the primary answered)
    # before it takes writes, or those commits would be overwritten or lost.
    client -e 'STOP SLAVE IO_THREAD'
    received="$(slave_field Gtid_IO_Pos)"
    if [ -n "$received" ]; then
      [ "$(client -N -e "SELECT MASTER_GTID_WAIT('$received', 60)")" = 0 ] || die "the replica did not apply what it received ($received) within 60 s"
    fi
    client <<SQL
STOP SLAVE;
RESET SLAVE ALL;
SET GLOBAL rpl_semi_sync_slave_enabled = OFF;
SET GLOBAL rpl_semi_sync_master_enabled = $(semi_sync_value);
SET GLOBAL read_only = OFF;
SQL
    echo "$node" >"$ROLE_FILE"
    touch "$PAIR/$primary/stale"
    log "node $node promoted in $((($(date +%s%N) - started) / 1000000)) ms (applied up to GTID ${received:-none}); node $primary is rebuilt as its replica at its next start"
    # What the promotion lost, read once the replica takes writes, from the former primary's
    # binary log (at hand here; not after the loss of a machine): the transactions it holds beyond
    # what the replica received. Semi-sync (AFTER_SYNC): none of them was acknowledged to its
    # client nor seen by another. Asynchronous: they may have been. stdout: key=value.
    local dir="$PAIR/$primary/data" last end="" lost=unknown
    last="$(tail -n1 "$dir/binlog.index" 2>/dev/null || true)"
    if [ -n "$last" ]; then
      end="$(mariadb-binlog "$dir/${last##*/}" 2>/dev/null | grep -o 'GTID [0-9]*-[0-9]*-[0-9]*' | tail -n1 | cut -d' ' -f2 || true)"
    fi
    if [[ "$end" =~ ^[0-9]+-[0-9]+-[0-9]+$ && "$received" =~ ^[0-9]+-[0-9]+-[0-9]+$ && "${end%%-*}" = "${received%%-*}" ]]; then
      lost=$((${end##*-} - ${received##*-}))
      [ "$lost" -ge 0 ] || lost=0
    fi
    log "the former primary's binary log ends at GTID ${end:-unknown}: $lost transaction(s) it wrote that the replica did not receive"
    echo "applied=${received:-none} former_primary_end=${end:-unknown} not_received=$lost"
  }

  case "${1:-}" in
    kill)
      local pid
      pid="$(running_pid)" || die "node $node is not running"
      kill -KILL "$pid"
      log "node $node (pid $pid) killed with SIGKILL"
      ;;
    pid) running_pid ;;
    promote) promote ;;
    status)
      if pid="$(running_pid)"; then
        local role=replica
        is_primary && role=primary
        echo "node $node: running, pid $pid, $URL, $role, $(client -N -e "SELECT CONCAT('read_only=', @@read_only, ', semi-sync ', IF(@@rpl_semi_sync_master_enabled, CONCAT('primary (', (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME='RPL_SEMI_SYNC_MASTER_STATUS'), ')'), IF(@@rpl_semi_sync_slave_enabled, 'replica', 'off')))" 2>/dev/null || echo unknown)"
        if [ "$role" = replica ]; then
          echo "  replication: io $(slave_field Slave_IO_Running), sql $(slave_field Slave_SQL_Running), $(slave_field Seconds_Behind_Master) s behind, applied up to GTID $(client -N -e "SELECT @@gtid_slave_pos")"
        fi
      else
        echo "node $node: stopped ($URL)$([ -f "$STALE_MARK" ] && echo ', a former primary: rebuilt at its next start')"
        return 3
      fi
      ;;
    *) main "$@" ;;
  esac
}

case "${1:-}" in
  node) shift; node_main "$@" ;;
  start)
    # The primary first: the replica connects to it at once.
    shift
    p="$(primary_node)"
    "$SELF" node "$p" start "$@"
    "$SELF" node "$(other_node "$p")" start "$@"
    ;;
  release)
    shift
    p="$(primary_node)"
    "$SELF" node "$(other_node "$p")" release "$@"
    "$SELF" node "$p" release "$@"
    ;;
  stop)
    p="$(primary_node)"
    "$SELF" node "$(other_node "$p")" stop
    "$SELF" node "$p" stop
    ;;
  reset)
    "$SELF" stop
    rm -rf "$PAIR"
    echo "[mariadb-replica.sh] data of both nodes deleted ($PAIR)" >&2
    ;;
  promote) "$SELF" node "$(other_node "$(primary_node)")" promote ;;
  primary) primary_node ;;
  url)
    for n in "${NODES[@]}"; do "$SELF" node "$n" url; done
    ;;
  ensure-installed) "$SELF" node 1 ensure-installed ;;
  status)
    rc=0
    for n in "${NODES[@]}"; do "$SELF" node "$n" status || rc=3; done
    exit "$rc"
    ;;
  *) sed -n '2,38p' "$SELF" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
