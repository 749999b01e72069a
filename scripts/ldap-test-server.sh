#!/usr/bin/env bash
# A private OpenLDAP (Debian slapd) on loopback for the LDAP sign-in tests and the manual's
# example: suffix dc=baton,dc=test, loaded from scripts/ldap/baton-test.ldif, admin
# cn=admin,dc=baton,dc=test / admin-password (it may change groups), users bind as themselves.
#
#   scripts/ldap-test-server.sh start [DIR] [PORT]   # default .tmp/slapd, 18820; prints the URL
#   scripts/ldap-test-server.sh stop  [DIR]          # stops the slapd of DIR (by its pid file)
#
# Needs `apt-get install slapd ldap-utils` (the packaged service is not used).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command=${1:-}
dir=$(realpath -m "${2:-.tmp/slapd}")
port=${3:-18820}

stop() {
  if [ -f "$dir/slapd.pid" ]; then
    pid=$(cat "$dir/slapd.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$dir/slapd.pid"
  fi
}

case "$command" in
  start)
    command -v /usr/sbin/slapd >/dev/null || { echo "slapd is missing: apt-get install -y slapd ldap-utils" >&2; exit 1; }
    stop
    rm -rf "$dir" && mkdir -p "$dir/data"
    cat >"$dir/slapd.conf" <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile $dir/slapd.pid
database mdb
maxsize 16777216
suffix "dc=baton,dc=test"
rootdn "cn=admin,dc=baton,dc=test"
rootpw admin-password
directory $dir/data
access to attrs=userPassword by self =xw by anonymous auth by * none
access to * by users read by * none
CONF
    /usr/sbin/slapadd -f "$dir/slapd.conf" -l scripts/ldap/baton-test.ldif -q
    /usr/sbin/slapd -f "$dir/slapd.conf" -h "ldap://127.0.0.1:$port/" -s 0
    for _ in $(seq 100); do
      if ldapsearch -x -H "ldap://127.0.0.1:$port/" -D "cn=admin,dc=baton,dc=test" -w admin-password -b "dc=baton,dc=test" -s base dn >/dev/null 2>&1; then
        echo "ldap://127.0.0.1:$port"
        exit 0
      fi
      sleep 0.1
    done
    echo "slapd did not answer on port $port" >&2
    stop
    exit 1
    ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop [DIR] [PORT]" >&2; exit 2 ;;
esac
