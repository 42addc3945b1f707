/**
 * Builds tenants through the admin API the way an operator would: an organisation with a team
 * and a project, a tenant administrator, a member with a key, and a viewer, each signed in.
 */
import { assert, assertEquals } from "../assert.ts";
import type { Harness } from "./harness.ts";

export type Cred = { bearer: string } | { cookie: string; csrf: string } | Record<never, never>;

export async function call(
  h: Harness,
  cred: Cred,
  method: string,
  path: string,
  body?: unknown,
  env?: { remoteAddr?: { hostname?: string } },
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if ("bearer" in cred) headers.authorization = `Bearer ${cred.bearer}`;
  if ("cookie" in cred) {
    headers.cookie = cred.cookie;
    headers["x-csrf-token"] = cred.csrf;
  }
  return await h.app.request(path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }, env);
}

/** Calls and expects `status`, returning the parsed JSON. */
export async function ok<T = Record<string, unknown>>(
  h: Harness,
  cred: Cred,
  method: string,
  path: string,
  body?: unknown,
  status = method === "POST" && !path.endsWith("/password") ? 201 : 200,
): Promise<T> {
  const res = await call(h, cred, method, path, body);
  const text = await res.text();
  assertEquals(res.status, status, `${method} ${path}: ${text}`);
  return JSON.parse(text) as T;
}

export async function signIn(h: Harness, email: string, password: string): Promise<Cred> {
  const res = await h.app.request("/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  const text = await res.text();
  assertEquals(res.status, 200, text);
  const setCookie = res.headers.get("set-cookie") ?? "";
  const m = /llmgw_session=([^;]+)/.exec(setCookie);
  assert(m, "a session cookie is set");
  return { cookie: `llmgw_session=${m[1]}`, csrf: JSON.parse(text).csrf };
}

export interface Tenant {
  org: { id: string; name: string };
  team: { id: string };
  project: { id: string };
  admin: { id: string; cred: Cred };
  member: { id: string; cred: Cred; key: string; keyId: string };
  viewer: { id: string; cred: Cred };
}

const password = "correct horse battery staple";

export async function makeTenant(h: Harness, name: string): Promise<Tenant> {
  const root: Cred = { bearer: h.adminToken };
  const org = await ok<{ id: string; name: string }>(h, root, "POST", "/api/v1/orgs", { name });
  const team = await ok<{ id: string }>(h, root, "POST", "/api/v1/teams", {
    org_id: org.id,
    name: "core",
  });
  const project = await ok<{ id: string }>(h, root, "POST", "/api/v1/projects", {
    team_id: team.id,
    name: "app",
  });
  const person = async (role: string, who: string) => {
    const p = await ok<{ id: string }>(h, root, "POST", "/api/v1/people", {
      username: `${who}.${name}`,
      email: `${who}@${name}.example`,
      role,
      org_id: org.id,
      password,
    });
    return { id: p.id, cred: await signIn(h, `${who}@${name}.example`, password) };
  };
  const admin = await person("tenant_admin", "ada");
  const member = await person("member", "mel");
  const viewer = await person("viewer", "vic");
  const key = await ok<{ id: string; key: string }>(h, member.cred, "POST", "/api/v1/keys", {
    name: "mel's key",
    project_id: project.id,
  });
  return { org, team, project, admin, member: { ...member, key: key.key, keyId: key.id }, viewer };
}
