/**
 * The models a person may use, as the portal shows them: state, context, prices, description.
 * "May use" is the allowed-models lists of every level above the person (the same check /v1
 * makes for their keys).
 */
import { traitsOf } from "../../core/engines/engine_traits.ts";
import type { PortalDeps } from "./portal_deps.ts";
import { modelLimits } from "../models/model_limits.ts";
import { catalogModelOf } from "../models/catalog_row.ts";
import type { ApiKeyInfo } from "../keys/keys.ts";
import type { ModelEntry } from "../router/catalog.ts";
import type { Person } from "../tenancy/tenancy.ts";

export type ModelState = "ready" | "starting" | "on_demand" | "stopped" | "failed";

export interface ModelRow {
  name: string;
  engine: string;
  state: ModelState;
  context: number | null;
  promptPer1k: number;
  completionPer1k: number;
  description: string | null;
  simulated: boolean;
  /** Takes pictures (its catalog definition lists the `vision` capability). */
  vision: boolean;
}

/** A stand-in key for the person, so admission's model check reads their chain of levels. */
export function personKey(person: Person, projectId: string | null = null): ApiKeyInfo {
  return {
    id: `portal:${person.id}`,
    name: "portal",
    prefix: "",
    userId: person.id,
    projectId,
    createdAt: 0,
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
  };
}

/**
 * The context one request may use, as `/v1/models` reports it (the catalog model's own), else
 * the engine's `-c`/`--ctx-size` for an entry without a definition (`up`'s own engine).
 */
export function contextOf(m: ModelEntry): number | null {
  const listed = modelLimits(m).context_length;
  if (typeof listed === "number" && listed > 0) return listed;
  const args = m.args ?? [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const inline = /^--ctx-size=(\d+)$/.exec(a);
    if (inline) return Number(inline[1]);
    if ((a === "-c" || a === "--ctx-size") && /^\d+$/.test(args[i + 1] ?? "")) {
      return Number(args[i + 1]);
    }
  }
  return null;
}

export function stateOf(deps: Pick<PortalDeps, "replicas">, m: ModelEntry): ModelState {
  // An administrator's stop (the catalog's `stopped` column) wins over whatever still runs.
  if (m.stopped) return "stopped";
  const states = deps.replicas.forModel(m.name).map((r) => r.state);
  if (states.includes("ready")) return "ready";
  if (states.includes("starting") || states.includes("restarting")) return "starting";
  if (states.includes("failed")) return "failed";
  return "on_demand";
}

export function modelRows(
  deps: Pick<PortalDeps, "catalog" | "people" | "replicas">,
  person: Person,
): ModelRow[] {
  const key = personKey(person);
  return deps.catalog.list()
    .filter((m) => deps.people.admission.allows(key, m.name))
    .map((m) => {
      const price = deps.people.prices.priceOf(m.name);
      return {
        name: m.name,
        engine: m.engine,
        state: stateOf(deps, m),
        context: contextOf(m),
        promptPer1k: price.promptPer1k,
        completionPer1k: price.completionPer1k,
        description: m.description,
        simulated: traitsOf(m.engine)?.simulated ?? false,
        vision: catalogModelOf(m)?.def.capabilities.includes("vision") ?? false,
      };
    });
}
