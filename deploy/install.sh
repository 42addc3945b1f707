#!/usr/bin/env bash
# Installs (or upgrades) llmgw as systemd services: the binary, the units, the docs, the users,
# and on a control plane the data directory. Run it again with a newer binary to upgrade: the
# binary is replaced atomically and running services are restarted.
#
#   deploy/install.sh [--binary dist/llmgw] [--prefix /usr/local] [--role control-plane|agent|appliance]
#                     [--root DIR] [--dry-run]
#
# --root DIR   install under DIR (a staging tree or a test); no users, no systemctl, no init
# --dry-run    print what would be done, change nothing
set -euo pipefail
cd "$(dirname "$0")/.."

binary=dist/llmgw
prefix=/usr/local
role=control-plane
root=""
dry=0

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=$2; shift 2 ;;
    --prefix) prefix=$2; shift 2 ;;
    --role) role=$2; shift 2 ;;
    --root) root=${2%/}; shift 2 ;;
    --dry-run) dry=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
case "$role" in
  control-plane) unit=llmgw.service; data=/var/lib/llmgw ;;
  agent) unit=llmgw-agent.service; data=/var/lib/llmgw-agent ;;
  appliance) unit=llmgw-appliance.service; data=/var/lib/llmgw ;;
  *) echo "install.sh: --role must be control-plane, agent or appliance" >&2; exit 2 ;;
esac
case "$prefix" in /*) ;; *) echo "install.sh: --prefix must be absolute" >&2; exit 2 ;; esac
[ -x "$binary" ] || { echo "install.sh: $binary is not an executable (build it: deploy/compile.sh)" >&2; exit 1; }

bin="$prefix/bin/llmgw"
units=/etc/systemd/system
docs="$prefix/share/doc/llmgw"
system=1
[ -n "$root" ] && system=0

run() {
  echo "+ $*"
  [ "$dry" = 1 ] || "$@"
}

# The binary: copied beside its place, then renamed over it, so a running llmgw is never
# half-overwritten.
run install -d -m 0755 "$root$prefix/bin" "$root$units" "$root$docs"
run install -m 0755 "$binary" "$root$bin.new"
run mv -f "$root$bin.new" "$root$bin"

for f in deploy/systemd/*.service; do
  name=$(basename "$f")
  echo "+ write $root$units/$name (ExecStart via $bin)"
  if [ "$dry" = 0 ]; then
    sed "s|@BIN@|$bin|g" "$f" >"$root$units/$name.new"
    chmod 0644 "$root$units/$name.new"
    mv -f "$root$units/$name.new" "$root$units/$name"
  fi
done
for f in docs/*.md; do run install -m 0644 "$f" "$root$docs/$(basename "$f")"; done

if [ "$system" = 0 ]; then
  echo "Installed under $root (no users, no systemctl). Role $role uses $unit."
  exit 0
fi

# A dedicated user for llmgw; on a node engines get their own, with a group of its name (see
# llmgw-agent.service and create_users.sh).
dryflag=()
[ "$dry" = 1 ] && dryflag=(--dry-run)
bash deploy/create_users.sh --role "$role" --data "$data" "${dryflag[@]}"

run install -d -m 0700 -o llmgw -g llmgw "$data"
[ "$role" = agent ] && run chmod 0750 "$data"
if [ "$role" != agent ] && [ ! -e "$data/llmgw.db" ]; then
  run runuser -u llmgw -- "$bin" init --data "$data"
fi

run systemctl daemon-reload
if systemctl is-active --quiet "$unit" 2>/dev/null; then
  run systemctl restart "$unit"
  echo "Upgraded and restarted $unit ($("$bin" version))."
else
  if [ "$role" = agent ] && [ ! -e "$data/node.credential" ]; then
    echo "Join this node before starting it:"
    echo "  sudo -u llmgw LLMGW_JOIN_CODE=llmgwj1.… $bin join --data $data --no-run"
    echo "  sudo systemctl enable --now $unit"
    exit 0
  fi
  run systemctl enable --now "$unit"
  echo "Installed and started $unit ($("$bin" version))."
fi
