/**
 * The admin API's routes are declared through here: one call registers the Hono handler and the
 * route's OpenAPI entry (from the same zod schemas that parse the request), so the document
 * served at /api/v1/openapi.json cannot drift from the routes.
 */
import type { Context, Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../app_env.ts";
import { readJsonBody } from "../../router/read_body.ts";
import { parse } from "../parse_input.ts";
import type { Actor } from "../../tenancy/access.ts";

export type Method = "get" | "post" | "put" | "patch" | "delete";

export interface RouteSpec {
  method: Method;
  /** Hono-style path under /api/v1, e.g. `/orgs/:id`. */
  path: string;
  summary: string;
  tag: string;
  body?: z.ZodType;
  query?: z.ZodObject;
  /** Who may call it, in words, for the document. */
  access: string;
  status?: number;
  /**
   * For changes made by routes that do not write their own audit rows (the cluster's nodes,
   * models and settings): the action recorded after a successful answer, and optionally what
   * the target looked like, read before and after the change.
   */
  audit?: {
    action: string;
    snapshot?: (c: Context<AppEnv>) => unknown;
  };
}

/** Writes one audit row; the people services' AuditLog.record. */
export type AuditWriter = (
  actor: Actor,
  action: string,
  target: { kind: string; id: string; orgId: string | null },
  before: unknown,
  after: unknown,
) => Promise<void>;

export class AdminRegistry {
  readonly specs: RouteSpec[] = [];

  constructor(readonly app: Hono<AppEnv>, private readonly audit?: AuditWriter) {}

  add<B = undefined, Q = Record<string, string>>(
    spec: RouteSpec & { body?: z.ZodType<B>; query?: z.ZodObject },
    handler: (
      c: Context<AppEnv>,
      input: { body: B; query: Q; actor: Actor },
    ) => Promise<Response> | Response,
  ): void {
    this.specs.push(spec);
    this.app.on(spec.method.toUpperCase(), spec.path, async (c) => {
      const body = spec.body
        ? parse(spec.body, await readJsonBody(c.req.raw, 256 * 1024))
        : undefined;
      const query = spec.query ? parse(spec.query, c.req.query()) : c.req.query();
      const actor = c.get("actor");
      const audit = spec.audit && this.audit ? { ...spec.audit, write: this.audit } : undefined;
      const before = audit?.snapshot ? await audit.snapshot(c) : null;
      const res = await handler(c, { body: body as B, query: query as Q, actor });
      if (audit && res.status < 400) {
        const target = Object.values(c.req.param()).join("/") || spec.path;
        const after = audit.snapshot ? await audit.snapshot(c) : body ?? null;
        await audit.write(
          actor,
          audit.action,
          { kind: spec.tag, id: target, orgId: null },
          before,
          after,
        );
      }
      return res;
    });
  }
}
