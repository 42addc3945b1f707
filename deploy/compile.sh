#!/usr/bin/env bash
# Builds the single llmgw executable with `deno compile`.
#
# deno compile needs the runtime it embeds (denort). Normally it downloads it; on a machine
# without that download, point DENORT_BIN at a denort binary of the same Deno version
# (package.json pins it) and deno compile uses it instead.
#
# What is embedded: every statically imported module (so locales/), and the files read at run
# time through import.meta.url: the store's migrations (db/migrations) and the portal (web/).
# The weights hashing worker is loaded by URL too, so it is included by name.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-dist/llmgw}
target=${LLMGW_TARGET:-}
deno=${DENO:-node_modules/.bin/deno}

if [ -n "${DENORT_BIN:-}" ]; then
  [ -x "$DENORT_BIN" ] || { echo "DENORT_BIN=$DENORT_BIN is not an executable" >&2; exit 1; }
  export DENORT_BIN
fi

mkdir -p "$(dirname "$out")"
"$deno" compile \
  --allow-all \
  --no-check=remote \
  --include db/migrations \
  --include web \
  --include locales \
  --include agent/weights/hash_worker.ts \
  ${target:+--target "$target"} \
  --output "$out" \
  main.ts

echo "built $out ($("$out" version))"
