#!/usr/bin/env bash
# Creates llmgw's users (run by install.sh; safe to run again). The service user USER has a group
# of its name; on a node, engines get their own user ENGINE_USER, also with a group of its name
# (engines.run_as: ENGINE_USER starts them with `setpriv --regid=ENGINE_USER`), plus USER's group
# (to read the weights and write their replica directories) and video/render (for the cards).
#
#   deploy/create_users.sh [--role control-plane|agent|appliance] [--user llmgw]
#                          [--engine-user llmgw-engine] [--data DIR] [--dry-run]
set -euo pipefail

role=control-plane
user=llmgw
engine=llmgw-engine
data=/var/lib/llmgw
dry=0
while [ $# -gt 0 ]; do
  case "$1" in
    --role) role=$2; shift 2 ;;
    --user) user=$2; shift 2 ;;
    --engine-user) engine=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --dry-run) dry=1; shift ;;
    *) echo "create_users.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

run() {
  echo "+ $*"
  [ "$dry" = 1 ] || "$@"
}

getent group "$user" >/dev/null || run groupadd --system "$user"
getent passwd "$user" >/dev/null ||
  run useradd --system --gid "$user" --home-dir "$data" --no-create-home \
    --shell /usr/sbin/nologin "$user"

[ "$role" = control-plane ] && exit 0
groups=$user
for g in video render; do getent group "$g" >/dev/null && groups="$groups,$g"; done
getent group "$engine" >/dev/null || run groupadd --system "$engine"
if getent passwd "$engine" >/dev/null; then
  # An engine user from an earlier install.sh had the service group as its primary group and no
  # group of its own: give it its own, keeping the service group as a supplementary one.
  run usermod --gid "$engine" --append --groups "$groups" "$engine"
else
  run useradd --system --gid "$engine" --groups "$groups" --no-create-home \
    --home-dir /nonexistent --shell /usr/sbin/nologin "$engine"
fi
