/** The cluster's live settings: listed, each saying whether it applies live, and changed. */
import { z } from "zod";
import type { AdminDeps } from "./admin_deps.ts";
import { AppError } from "../../../core/errors.ts";
import { requireRead, requireWrite } from "../../tenancy/access.ts";
import type { AdminRegistry } from "./registry.ts";

function requireSettings(deps: Pick<AdminDeps, "people" | "settings">) {
  if (!deps.settings) {
    throw new AppError("invalid_request", { detail: "this server keeps no cluster settings" });
  }
  return deps.settings;
}

const cluster = { orgId: null, teamId: null };

/**
 * The audit trail's view of the settings: each value under the setting's name. A list of
 * `{key, value}` rows would lose the names, since the audit redaction reads a field called
 * `key` as a secret (an API key's); secret settings are never listed at all.
 */
function settingValues(deps: Pick<AdminDeps, "settings">): Record<string, unknown> | null {
  const list = deps.settings?.list();
  return list ? Object.fromEntries(list.map((s) => [s.key, s.value])) : null;
}

export function settingsRoutes(
  r: AdminRegistry,
  deps: Pick<AdminDeps, "people" | "settings">,
): void {
  const base = { tag: "operations", access: "administrator, operator" };
  r.add({
    ...base,
    method: "get",
    path: "/settings",
    summary: "The cluster's settings, each saying whether it applies live",
  }, (c, { actor }) => {
    requireRead(actor, "staff", cluster, c.req.path);
    return c.json({ data: requireSettings(deps).list() });
  });
  r.add({
    ...base,
    method: "put",
    path: "/settings",
    audit: { action: "settings.set", snapshot: () => settingValues(deps) },
    summary: "Change settings ({key: value, …})",
    body: z.unknown(),
  }, async (c, { actor, body }) => {
    requireWrite(actor, "staff", cluster, c.req.path);
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new AppError("invalid_request", { detail: 'body: expected {"key": value, …}' });
    }
    return c.json(await requireSettings(deps).set(body as Record<string, unknown>));
  });
}
