#!/usr/bin/env bash
# Start a throwaway PostgreSQL server on loopback for the tests and print its URL.
#
#   eval "$(.ci/postgres.sh start DIR [PORT])"   # exports SVMTUNE_POSTGRES_URL
#   .ci/postgres.sh stop DIR
#
# The server refuses to run as root, so the cluster lives in DIR (created, owned by the
# package's unprivileged `postgres` user when run as root; DIR's parents must let that user
# through) and runs as that user. PORT defaults to a free one. TCP
# connections need a password (scram-sha-256), so a wrong password is a real error; the
# database user `svmtune` (password `svmtune`) may create databases (one per test).
set -euo pipefail

cmd="${1:?usage: postgres.sh start|stop DIR [PORT]}"
dir="${2:?usage: postgres.sh start|stop DIR [PORT]}"
port="${3:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}"

bindir=""
for d in /usr/lib/postgresql/*/bin; do
  [ -x "$d/pg_ctl" ] && bindir="$d"
done
if [ -z "$bindir" ]; then
  bindir="$(dirname "$(command -v pg_ctl 2>/dev/null || echo /nonexistent/pg_ctl)")"
fi
if [ ! -x "$bindir/pg_ctl" ]; then
  echo "postgres.sh: no PostgreSQL server binaries (apt-get install postgresql)" >&2
  exit 1
fi

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    # shellcheck disable=SC2016
    su postgres -s /bin/sh -c '"$0" "$@"' -- "$@"
  else
    "$@"
  fi
}

case "$cmd" in
  start)
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then
      chown postgres "$dir"
    fi
    chmod 700 "$dir"
    pwfile="$dir/pw"
    printf 'svmtune\n' > "$pwfile"
    [ "$(id -u)" -eq 0 ] && chown postgres "$pwfile"
    as_owner "$bindir/initdb" -D "$dir/data" -U svmtune --pwfile="$pwfile" \
      --auth-local=trust --auth-host=scram-sha-256 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200 -c fsync=off" \
      start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    echo "export SVMTUNE_POSTGRES_URL=postgresql+psycopg://svmtune:svmtune@127.0.0.1:$port/postgres"
    ;;
  stop)
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    ;;
  *)
    echo "usage: postgres.sh start|stop DIR [PORT]" >&2
    exit 2
    ;;
esac
