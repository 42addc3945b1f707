#!/bin/sh
# The Patroni store of docs/ha.md on one machine, to try it: one etcd and three PostgreSQL
# instances under Patroni, on loopback ports, all run as the postgres user (run this as root),
# with a short leader TTL so a failover shows in seconds. Everything lives under $ROOT
# (default /tmp/llmgw-ha); `sh try_on_one_machine.sh stop` ends it all.
#
#   sh deploy/ha/try_on_one_machine.sh        # prints the store.url for llmgw when up
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ROOT=${ROOT:-/tmp/llmgw-ha}
as_pg() { runuser -u postgres -- "$@"; }

if [ "${1:-}" = stop ]; then
  for f in "$ROOT"/*.pid; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
  done
  exit 0
fi

mkdir -p "$ROOT"
chown postgres:postgres "$ROOT"
chmod 700 "$ROOT"
# Throwaway passwords for the trial, kept in a file only postgres reads.
if [ ! -f "$ROOT/secrets" ]; then
  umask 077
  printf 'SUPERUSER_PASSWORD=%s\nREPL_PASSWORD=%s\n' \
    "$(head -c 18 /dev/urandom | base64 | tr -d '/+=')" \
    "$(head -c 18 /dev/urandom | base64 | tr -d '/+=')" > "$ROOT/secrets"
  chown postgres:postgres "$ROOT/secrets"
fi
. "$ROOT/secrets"
export SUPERUSER_PASSWORD REPL_PASSWORD

as_pg sh -c "cd '$ROOT' && exec etcd --name e1 --data-dir '$ROOT/etcd' \
  --listen-client-urls http://127.0.0.1:23790 --advertise-client-urls http://127.0.0.1:23790 \
  --listen-peer-urls http://127.0.0.1:23800 --initial-advertise-peer-urls http://127.0.0.1:23800 \
  --initial-cluster e1=http://127.0.0.1:23800 > '$ROOT/etcd.log' 2>&1 & echo \$! > '$ROOT/etcd.pid'"
sleep 2

for i in 1 2 3; do
  NAME=pg$i HOST=127.0.0.1 ETCD_HOSTS=127.0.0.1:23790 NETWORK=127.0.0.1/32 \
    PG_PORT=$((54320 + i)) REST_PORT=$((8100 + i)) TTL=10 LOOP_WAIT=2 RETRY_TIMEOUT=4 \
    DATA_DIR="$ROOT/pg$i" SOCKET_DIR="$ROOT" sh "$here/render.sh" > "$ROOT/pg$i.yml"
  chown postgres:postgres "$ROOT/pg$i.yml"
  chmod 600 "$ROOT/pg$i.yml"
  as_pg sh -c "exec patroni '$ROOT/pg$i.yml' > '$ROOT/pg$i.log' 2>&1 & echo \$! > '$ROOT/pg$i.pid'"
  # The first one bootstraps the cluster; the others clone from it.
  [ "$i" = 1 ] && sleep 8
done

for _ in $(seq 1 60); do
  running=$(as_pg patronictl -c "$ROOT/pg1.yml" list 2>/dev/null | grep -c running || true)
  [ "$running" = 3 ] && break
  sleep 1
done
as_pg patronictl -c "$ROOT/pg1.yml" list
primary=$(for i in 1 2 3; do
  if curl -fs "http://127.0.0.1:$((8100 + i))/primary" >/dev/null; then echo $((54320 + i)); fi
done)
PGPASSWORD=$SUPERUSER_PASSWORD as_pg psql -h 127.0.0.1 -p "$primary" -U postgres -c \
  "CREATE DATABASE llmgw" 2>/dev/null || true
echo "store.url: postgres://postgres@127.0.0.1:54321,127.0.0.1:54322,127.0.0.1:54323/llmgw"
echo "password: PGPASSWORD from $ROOT/secrets (SUPERUSER_PASSWORD)"
