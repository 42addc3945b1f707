/**
 * The release before protocol 2 called a replica a "shard" on the wire: the messages
 * `shard_state`, `start_shard` and `stop_shard`, the fields `shardId`, `shards` and `shard`.
 * Each side reads both spellings, and speaks the older one to a peer that has not said it knows
 * the newer (an agent's hello, the control plane's welcome), so a cluster upgrades one machine at
 * a time. Only the names the protocol defines are translated: labels, arguments and other free
 * text inside a message are left as they are.
 */

const newerTypes: Record<string, string> = {
  shard_state: "replica_state",
  start_shard: "start_replica",
  stop_shard: "stop_replica",
};
const newerKeys: Record<string, string> = {
  shardId: "replicaId",
  shards: "replicas",
  shard: "replica",
};
/** Top-level fields whose value is a replica (or a list of them) carrying its own id field. */
const nested = new Set(["spec", "replica", "replicas", "shard", "shards"]);

const olderTypes = invert(newerTypes);
const olderKeys = invert(newerKeys);

/** The first protocol that speaks of replicas. */
export const replicaWordsSince = 2;

/** A decoded message in today's names, whichever a peer used. */
export function fromOlderWire(json: unknown): unknown {
  return rename(json, newerTypes, newerKeys);
}

/** A message for a peer of `protocol`: in the older names when it predates them. */
export function forPeer<T>(msg: T, protocol: number): T | unknown {
  return protocol >= replicaWordsSince ? msg : rename(msg, olderTypes, olderKeys);
}

function rename(
  json: unknown,
  types: Record<string, string>,
  keys: Record<string, string>,
): unknown {
  if (!isObject(json)) return json;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(json)) {
    const key = keys[k] ?? k;
    if (k === "type" && typeof v === "string") out.type = types[v] ?? v;
    else if (nested.has(k)) out[key] = Array.isArray(v) ? v.map((x) => ids(x, keys)) : ids(v, keys);
    else out[key] = v;
  }
  return out;
}

/** A replica's own id field, renamed; the rest of it as it was. */
function ids(v: unknown, keys: Record<string, string>): unknown {
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    out[k === "shardId" || k === "replicaId" ? keys[k] ?? k : k] = x;
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function invert(m: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(m).map(([a, b]) => [b, a]));
}
