#!/usr/bin/env bash
# Builds the single llmgw executable with `deno compile`.
#
# deno compile needs the runtime it embeds (denort). Normally it downloads it; on a machine
# without that download, point DENORT_BIN at a denort binary of the same Deno version
# (package.json pins it) and deno compile uses it instead.
#
# What is embedded: every statically imported module (so locales/), and the files read at run
# time through import.meta.url: the store's migrations (db/migrations), the portal (web/), the
# weights hashing worker (loaded by URL, so included by name), and core/build_info.json (version,
# commit, build date; written here, removed after, never committed), which `llmgw version` prints.
# The V8 flags of core/v8_flags.ts are baked in, as the tasks pass them from source.
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
version=$(sed -n 's/^export const VERSION = "\(.*\)";$/\1/p' core/version.ts)
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  commit="$commit-dirty"
fi
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
v8_flags=$(sed -n 's/^export const v8Flags = "\(.*\)";$/\1/p' core/v8_flags.ts)
[ -n "$v8_flags" ] || { echo "cannot read the V8 flags from core/v8_flags.ts" >&2; exit 1; }
trap 'rm -f core/build_info.json' EXIT
printf '{"version":"%s","commit":"%s","date":"%s"}\n' "$version" "$commit" "$date" >core/build_info.json

"$deno" compile \
  --allow-all \
  --no-check=remote \
  --v8-flags="$v8_flags" \
  --include db/migrations \
  --include web \
  --include locales \
  --include agent/weights/hash_worker.ts \
  --include core/build_info.json \
  ${target:+--target "$target"} \
  --output "$out" \
  main.ts

echo "built $out ($("$out" version))"
