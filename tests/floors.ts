/**
 * The floors inside server/ (docs/architecture.md, "The house"): `server/wiring/` is the top
 * floor, where config, services and listeners are composed; `server/cli/` is the entrance that
 * starts it. Every other folder is a room that receives only the narrow interface it declares,
 * so no room imports the top floor, and the rooms' folder graph has no cycle but the ones listed
 * here, each with the reason it is still there. A new import that closes another cycle fails
 * the layout test naming the cycle; removing one of these makes its line stale, and the test
 * says so, so the list only shrinks.
 */
import type { ImportEdge } from "./layout_test.ts";

const topFloor = "server/wiring/";
const entrances = ["server/wiring/", "server/cli/"];

/** Imports between rooms that still go up a floor, `from -> to`, with why each remains. */
export const upwardImports: Record<string, string> = {
  "tenancy -> auth":
    "the people record (tenancy/services.ts) names the sign-in services it bundles (types only)",
  "tenancy -> scim": "the people record names the SCIM services it bundles (types only)",
  "accounting -> tenancy": "limits and budgets are kept per level of the tenant tree",
  "router -> cache": "the answer cache is a step of dispatch, and the relay hands it answers",
  "nodes -> auth": "the cluster app checks admin tokens; node secrets are hashed as keys are",
  "nodes -> router": "the hub publishes its replicas into the router's table and reads the catalog",
  "observe -> router": "the gateway's metrics read the replica table, the catalog and the queues",
  "guard -> router": "a judge model is asked through the catalog and the replica table",
  "router -> models": "dispatch asks the model gate to start an on-demand model, reads its limits",
  "accounting -> cluster": "admission leases budget slices shared among control planes",
  "accounting -> keys": "admission reads a key's own record",
  "accounting -> router": "prices are read from the catalog's entry",
  "audit -> tenancy": "audit reads are scoped by the tenant tree's access rules",
  "cluster -> tenancy": "budget slices are leased per level of the tenant tree",
  "cluster -> router": "slot shares count the replica table's slots",
  "control -> router": "shared replicas publish the replica table through the store",
  "edge -> router": "the edge decodes chunked bodies with the relay's one chunked decoder",
  "keys -> auth": "keys are hashed with auth's secret hashing",
  "mcp -> routes": "the MCP route checks API keys with the /v1 routes' middleware",
  "notify -> router": "notifications name replica states",
  "observe -> cache": "the metrics read the answer cache's counters",
  "observe -> models": "the metrics read a catalog row's lifecycle",
  "scim -> routes": "SCIM parses its input with the routes' shared body parser",
};

const isTest = (path: string) => /_test\.tsx?$/.test(path) || path.includes("/testdata/");

/** The folder right under server/ that holds a file, or undefined outside server/'s folders. */
export function roomOf(path: string): string | undefined {
  const parts = path.split("/");
  return parts[0] === "server" && parts.length > 2 ? parts[1] : undefined;
}

/** `file:line imports target: why` for each import of the top floor from a room below it. */
export function topFloorBreaks(edges: readonly ImportEdge[]): string[] {
  return edges.flatMap((e) => {
    if (!e.from.startsWith("server/") || isTest(e.from)) return [];
    if (!e.to.startsWith(topFloor) || entrances.some((p) => e.from.startsWith(p))) return [];
    return [`${e.from}:${e.line} imports ${e.to}: only the top floor imports the top floor`];
  });
}

/** The rooms' folder graph (tests and the top floor left out), as `from -> to` pairs. */
export function roomArrows(edges: readonly ImportEdge[]): Map<string, ImportEdge> {
  const arrows = new Map<string, ImportEdge>();
  for (const e of edges) {
    const from = roomOf(e.from);
    const to = roomOf(e.to);
    if (!from || !to || from === to || isTest(e.from)) continue;
    if (from === "wiring" || from === "cli") continue;
    const key = `${from} -> ${to}`;
    if (!arrows.has(key)) arrows.set(key, e);
  }
  return arrows;
}

/** A cycle among the rooms once the listed upward imports are taken out, or undefined. */
export function cycleOf(arrows: ReadonlySet<string>): string[] | undefined {
  const next = new Map<string, string[]>();
  for (const a of arrows) {
    const [from, to] = a.split(" -> ") as [string, string];
    next.set(from, [...next.get(from) ?? [], to]);
  }
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (room: string): string[] | undefined => {
    if (state.get(room) === "done") return undefined;
    if (state.get(room) === "open") return [...path.slice(path.indexOf(room)), room];
    state.set(room, "open");
    path.push(room);
    for (const to of next.get(room) ?? []) {
      const found = visit(to);
      if (found) return found;
    }
    path.pop();
    state.set(room, "done");
    return undefined;
  };
  for (const room of next.keys()) {
    const found = visit(room);
    if (found) return found;
  }
  return undefined;
}
