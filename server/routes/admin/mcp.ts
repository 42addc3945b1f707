/**
 * Company MCP servers behind /mcp: registered, replaced, listed and removed by administrators
 * (a registration decides what a shared credential may reach). Answers name the headers sent,
 * never their values or where the values are read from.
 */
import { z } from "zod";
import { AppError } from "../../../core/errors.ts";
import type { Mcp } from "../../mcp/build_mcp.ts";
import { describeServer, type McpServerInput } from "../../mcp/server_book.ts";
import { type Actor, requireRead, requireWrite } from "../../tenancy/access.ts";
import type { AuditWriter } from "./registry.ts";
import type { AdminRegistry } from "./registry.ts";

const serverFields = {
  url: z.string().min(1).max(2000),
  /** Header name -> absolute path of the file its value is read from, on every call. */
  headers: z.record(z.string(), z.string().min(1).max(1000)).optional(),
  rate: z.number().int().min(1).nullable().optional(),
  tools: z.array(z.string().min(1).max(200)).max(200).nullable().optional(),
  /** `oauth`: each person authorises once in the portal and calls with their own token. */
  auth: z.enum(["headers", "oauth"]).optional(),
};
const createBody = z.strictObject({ name: z.string().min(1).max(40), ...serverFields });
const replaceBody = z.strictObject(serverFields);

const staff = { orgId: null, teamId: null };

/** Each credential file must be readable now, so a typo fails here rather than on a call. */
async function checkFiles(headers: Record<string, string>): Promise<void> {
  for (const [header, file] of Object.entries(headers)) {
    const ok = await Deno.stat(file).then((s) => s.isFile, () => false);
    if (!ok) {
      throw new AppError("invalid_request", {
        detail: `the file for ${header} is not readable on this control plane`,
      }, "headers");
    }
  }
}

export function mcpServerRoutes(
  r: AdminRegistry,
  deps: { mcp: Pick<Mcp, "servers">; audit: AuditWriter },
): void {
  const book = deps.mcp.servers;
  /** A registration decides what a shared credential reaches: administrators only. */
  const mayChange = (actor: Actor, path: string) => {
    requireWrite(actor, "staff", staff, path);
    if (actor.role !== "administrator") throw new AppError("forbidden");
  };
  const save = async (actor: Actor, path: string, input: McpServerInput) => {
    mayChange(actor, path);
    await checkFiles(input.headers);
    const before = await book.get(input.name);
    const saved = describeServer(await book.put(input));
    await deps.audit(
      actor,
      before ? "mcp_server.replace" : "mcp_server.add",
      { kind: "mcp_server", id: input.name, orgId: null },
      before ? describeServer(before) : null,
      saved,
    );
    return saved;
  };
  const input = (name: string, b: z.infer<typeof replaceBody>): McpServerInput => ({
    name,
    url: b.url,
    headers: b.headers ?? {},
    rate: b.rate ?? null,
    tools: b.tools ?? null,
    auth: b.auth ?? "headers",
  });

  r.add({
    method: "get",
    path: "/mcp/servers",
    tag: "mcp",
    summary: "Company MCP servers behind /mcp (header names only, never values)",
    access: "administrator, operator",
  }, async (c, { actor }) => {
    requireRead(actor, "staff", staff, c.req.path);
    return c.json({ data: (await book.list()).map(describeServer) });
  });
  r.add({
    method: "post",
    path: "/mcp/servers",
    tag: "mcp",
    summary:
      "Register a company MCP server; its tools appear as NAME.tool to keys granted them (limits' tools)",
    body: createBody,
    access: "administrator",
    status: 201,
  }, async (c, { actor, body }) => {
    mayChange(actor, c.req.path);
    if (await book.get(body.name)) {
      throw new AppError("conflict", { detail: `an MCP server '${body.name}' exists` }, "name");
    }
    return c.json(await save(actor, c.req.path, input(body.name, body)), 201);
  });
  r.add({
    method: "put",
    path: "/mcp/servers/:name",
    tag: "mcp",
    summary: "Replace a server's registration (a header no longer given is no longer sent)",
    body: replaceBody,
    access: "administrator",
  }, async (c, { actor, body }) => {
    return c.json(await save(actor, c.req.path, input(c.req.param("name")!, body)));
  });
  r.add({
    method: "delete",
    path: "/mcp/servers/:name",
    tag: "mcp",
    summary: "Remove a company MCP server",
    access: "administrator",
  }, async (c, { actor }) => {
    const name = c.req.param("name")!;
    mayChange(actor, c.req.path);
    const before = await book.get(name);
    if (!before || !(await book.remove(name))) {
      throw new AppError("not_found", { path: c.req.path });
    }
    await deps.audit(
      actor,
      "mcp_server.remove",
      { kind: "mcp_server", id: name, orgId: null },
      describeServer(before),
      null,
    );
    return c.json({ name, removed: true });
  });
}
