/**
 * /scim/v2: SCIM 2.0 Users and Groups (RFC 7644) for an identity provider's provisioning (Entra
 * ID, Okta), behind a bearer token made with `ctl scim token create`. Lists take `filter`,
 * `startIndex` and `count`; PATCH is applied to the resource's JSON and the result made true
 * (scim_patch.ts). Answers are `application/scim+json`; errors take SCIM's shape (errors.ts).
 */
import type { Context } from "hono";
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import { AppError } from "../../core/errors.ts";
import { bearerToken } from "../auth/admin_tokens.ts";
import { readJsonBody } from "../router/read_body.ts";
import { parse } from "../routes/parse_input.ts";
import { matches, parseFilter } from "./scim_filter.ts";
import { applyPatch, patchBody } from "./scim_patch.ts";
import type { ScimTokens } from "./scim_tokens.ts";
import { groupSchema, type Json, type ScimUsers, userSchema } from "./scim_users.ts";
import type { ScimGroups } from "./scim_groups.ts";

const listSchema = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
const maxBody = 1024 * 1024;
const maxCount = 200;

export interface ScimRoutesDeps {
  tokens: ScimTokens;
  users: ScimUsers;
  groups: ScimGroups;
}

function scim(c: Context<AppEnv>, body: unknown, status: 200 | 201 = 200): Response {
  return c.body(JSON.stringify(body), status, { "content-type": "application/scim+json" });
}

async function readResource(c: Context<AppEnv>): Promise<Json> {
  const body = await readJsonBody(c.req.raw, maxBody);
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new AppError("invalid_request", { detail: "expected a JSON object" });
  }
  return body as Json;
}

/** A page of resources as RFC 7644 §3.4.2 lists them; startIndex counts from 1. */
function page(c: Context<AppEnv>, all: Json[]): Json {
  const filterText = c.req.query("filter");
  const filtered = filterText ? all.filter((r) => matches(r, parseFilter(filterText))) : all;
  const start = Math.max(1, Number.parseInt(c.req.query("startIndex") ?? "1", 10) || 1);
  const askedCount = Number.parseInt(c.req.query("count") ?? String(maxCount), 10);
  const count = Math.min(maxCount, Math.max(0, Number.isNaN(askedCount) ? maxCount : askedCount));
  const items = filtered.slice(start - 1, start - 1 + count);
  return {
    schemas: [listSchema],
    totalResults: filtered.length,
    startIndex: start,
    itemsPerPage: items.length,
    Resources: items,
  };
}

function excludesMembers(c: Context<AppEnv>): boolean {
  return (c.req.query("excludedAttributes") ?? "").toLowerCase().split(",").map((s) => s.trim())
    .includes("members");
}

export function scimRoutes(deps: ScimRoutesDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const who = new WeakMap<Request, string>();
  const token = (c: Context<AppEnv>) => who.get(c.req.raw) ?? "scim";

  app.use("*", async (c, next) => {
    const presented = bearerToken(c.req.raw);
    const found = presented ? await deps.tokens.identify(presented) : undefined;
    if (!found) throw new AppError("unauthorized");
    who.set(c.req.raw, found.name);
    await next();
  });

  app.get("/ServiceProviderConfig", (c) =>
    scim(c, {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
      patch: { supported: true },
      bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: maxCount },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [{
        type: "oauthbearertoken",
        name: "Bearer token",
        description: "A token made with `llmgw ctl scim token create NAME`",
      }],
    }));
  app.get("/ResourceTypes", (c) =>
    scim(c, {
      schemas: [listSchema],
      totalResults: 2,
      Resources: [
        { id: "User", name: "User", endpoint: "/Users", schema: userSchema },
        { id: "Group", name: "Group", endpoint: "/Groups", schema: groupSchema },
      ],
    }));

  app.get("/Users", async (c) => {
    const all = await Promise.all((await deps.users.all()).map((p) => deps.users.resource(p)));
    return scim(c, page(c, all));
  });
  app.post("/Users", async (c) => {
    const made = await deps.users.create(await readResource(c), token(c));
    return scim(c, await deps.users.resource(made), 201);
  });
  app.get("/Users/:id", async (c) => {
    return scim(c, await deps.users.resource(await deps.users.get(c.req.param("id"))));
  });
  app.put("/Users/:id", async (c) => {
    const p = await deps.users.get(c.req.param("id"));
    const after = await deps.users.replace(p, await readResource(c), token(c));
    return scim(c, await deps.users.resource(after));
  });
  app.patch("/Users/:id", async (c) => {
    const p = await deps.users.get(c.req.param("id"));
    const body = parse(patchBody, await readJsonBody(c.req.raw, maxBody));
    const resource = await deps.users.resource(p);
    applyPatch(resource, body);
    const after = await deps.users.replace(p, resource, token(c));
    return scim(c, await deps.users.resource(after));
  });
  app.delete("/Users/:id", async (c) => {
    await deps.users.deprovision(await deps.users.get(c.req.param("id")), token(c));
    return c.body(null, 204);
  });

  app.get("/Groups", async (c) => {
    const withMembers = !excludesMembers(c);
    // Filtered with members present, so `members[value eq "id"]` works either way.
    const all = (await deps.groups.all()).map((g) => deps.groups.resource(g, true));
    const listed = page(c, all);
    if (!withMembers) {
      listed.Resources = (listed.Resources as Json[]).map(({ members: _, ...g }) => g);
    }
    return scim(c, listed);
  });
  app.post("/Groups", async (c) => {
    const made = await deps.groups.create(await readResource(c), token(c));
    return scim(c, deps.groups.resource(made), 201);
  });
  app.get("/Groups/:id", async (c) => {
    const g = await deps.groups.get(c.req.param("id"));
    return scim(c, deps.groups.resource(g, !excludesMembers(c)));
  });
  app.put("/Groups/:id", async (c) => {
    const g = await deps.groups.get(c.req.param("id"));
    const after = await deps.groups.replace(g, await readResource(c), token(c));
    return scim(c, deps.groups.resource(after));
  });
  app.patch("/Groups/:id", async (c) => {
    const g = await deps.groups.get(c.req.param("id"));
    const body = parse(patchBody, await readJsonBody(c.req.raw, maxBody));
    const resource = deps.groups.resource(g);
    applyPatch(resource, body);
    const after = await deps.groups.replace(g, resource, token(c));
    // Entra ID reads 204 or 200; the group with members is what the RFC shows.
    return scim(c, deps.groups.resource(after));
  });
  app.delete("/Groups/:id", async (c) => {
    await deps.groups.remove(await deps.groups.get(c.req.param("id")), token(c));
    return c.body(null, 204);
  });
  return app;
}
