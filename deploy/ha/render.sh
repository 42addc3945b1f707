#!/bin/sh
# Fills deploy/ha/patroni.yml.in for one machine and prints it. Every value comes from the
# environment (passwords too, so they stay out of any process's argv), with the production
# defaults of docs/ha.md:
#   NAME=pg1 HOST=10.0.0.11 ETCD_HOSTS=10.0.0.11:2379,10.0.0.12:2379,10.0.0.13:2379 \
#   NETWORK=10.0.0.0/24 SUPERUSER_PASSWORD=… REPL_PASSWORD=… sh render.sh > /etc/patroni/config.yml
set -eu
here=$(dirname "$0")
: "${NAME:?NAME (pg1, pg2, pg3)}" "${HOST:?HOST (this machine's address)}"
: "${ETCD_HOSTS:?ETCD_HOSTS (host:port,…)}" "${NETWORK:?NETWORK (the machines' CIDR)}"
: "${SUPERUSER_PASSWORD:?SUPERUSER_PASSWORD}" "${REPL_PASSWORD:?REPL_PASSWORD}"
export PG_VERSION="${PG_VERSION:-15}"
export PG_PORT="${PG_PORT:-5432}" REST_PORT="${REST_PORT:-8008}"
export TTL="${TTL:-30}" LOOP_WAIT="${LOOP_WAIT:-10}" RETRY_TIMEOUT="${RETRY_TIMEOUT:-10}"
export REPL_USER="${REPL_USER:-replicator}"
export DATA_DIR="${DATA_DIR:-/var/lib/postgresql/$PG_VERSION/llmgw}"
export BIN_DIR="${BIN_DIR:-/usr/lib/postgresql/$PG_VERSION/bin}"
export SOCKET_DIR="${SOCKET_DIR:-/var/run/postgresql}"
export NAME HOST ETCD_HOSTS NETWORK SUPERUSER_PASSWORD REPL_PASSWORD
awk '{
  while (match($0, /@[A-Z_]+@/)) {
    k = substr($0, RSTART + 1, RLENGTH - 2)
    if (!(k in ENVIRON)) { print "render.sh: " k " is not set" > "/dev/stderr"; exit 1 }
    $0 = substr($0, 1, RSTART - 1) ENVIRON[k] substr($0, RSTART + RLENGTH)
  }
  print
}' "$here/patroni.yml.in"
