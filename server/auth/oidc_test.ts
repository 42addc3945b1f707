/**
 * Single sign-on against a fake identity provider: a real HTTP server with discovery, a JWKS and a
 * token endpoint that checks PKCE and signs real ID tokens with `jose`.
 */
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { createHash } from "node:crypto";
import { assert, assertEquals } from "../../tests/assert.ts";
import { type Harness, startHarness } from "../../tests/helpers/harness.ts";
import { call, makeTenant, ok } from "../../tests/helpers/tenants.ts";

type Signer = "real" | "forged";

async function startIdp() {
  const real = await generateKeyPair("RS256", { extractable: true });
  const forged = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(real.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  const codes = new Map<string, { claims: JWTPayload; challenge: string; signer: Signer }>();
  let issuer = "";
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/.well-known/openid-configuration") {
      return Response.json({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
      });
    }
    if (url.pathname === "/jwks") return Response.json({ keys: [jwk] });
    if (url.pathname === "/token" && req.method === "POST") {
      const form = new URLSearchParams(await req.text());
      const entry = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      if (!entry || challenge !== entry.challenge) {
        return Response.json({ error: "invalid_grant" }, { status: 400 });
      }
      const key = entry.signer === "real" ? real.privateKey : forged.privateKey;
      const idToken = await new SignJWT(entry.claims).setProtectedHeader({
        alg: "RS256",
        kid: "k1",
      })
        .sign(key);
      return Response.json({ id_token: idToken, access_token: "at", token_type: "Bearer" });
    }
    return new Response("not found", { status: 404 });
  });
  issuer = `http://127.0.0.1:${server.addr.port}`;
  return {
    issuer,
    codes,
    async close() {
      await server.shutdown();
    },
  };
}

async function signInWith(
  h: Harness,
  idp: Awaited<ReturnType<typeof startIdp>>,
  claims: (nonce: string) => JWTPayload,
  signer: Signer = "real",
): Promise<Response> {
  const start = await h.app.request("/auth/oidc/start");
  assertEquals(start.status, 302);
  const to = new URL(start.headers.get("location")!);
  assertEquals(to.origin + to.pathname, `${idp.issuer}/authorize`);
  assertEquals(to.searchParams.get("code_challenge_method"), "S256");
  const state = to.searchParams.get("state")!;
  const code = crypto.randomUUID();
  idp.codes.set(code, {
    claims: claims(to.searchParams.get("nonce")!),
    challenge: to.searchParams.get("code_challenge")!,
    signer,
  });
  const bound = /llmgw_oidc_state=([^;]+)/.exec(start.headers.get("set-cookie")!)![0];
  return await h.app.request(`/auth/oidc/callback?code=${code}&state=${state}`, {
    headers: { cookie: bound },
  });
}

const settings = (issuer: string) => ({
  issuer,
  clientId: "llmgw",
  clientSecret: "",
  redirectUrl: "http://gw.example/auth/oidc/callback",
  scopes: "openid email profile",
  groupsClaim: "groups",
  label: "Acme SSO",
  roles: { administrator: ["gw-admins"], tenant_admin: ["acme-admins"] },
  memberships: { "acme-people": "team:Acme/Core" },
});

Deno.test("OIDC: people are made at first sign-in, groups map to role and team at every sign-in", async () => {
  const idp = await startIdp();
  const h = await startHarness({ oidc: settings(idp.issuer) });
  try {
    const now = Math.floor(h.clock.now() / 1000);
    const claims = (groups: string[]) => (nonce: string): JWTPayload => ({
      iss: idp.issuer,
      aud: "llmgw",
      sub: "user-42",
      iat: now,
      exp: now + 300,
      nonce,
      email: "Grace@Acme.Example",
      name: "Grace",
      groups,
    });
    const first = await signInWith(h, idp, claims(["acme-people", "acme-admins"]));
    assertEquals(first.status, 302, await first.clone().text());
    const cookie = /llmgw_session=[^;]+/.exec(first.headers.get("set-cookie")!)![0];
    const me = (await (await h.app.request("/auth/me", { headers: { cookie } })).json()).person;
    assertEquals(me.email, "grace@acme.example");
    assertEquals(me.role, "tenant_admin");
    assertEquals(me.signIn, "oidc");
    const org = h.people.tenancy.orgs.get(me.orgId)!;
    assertEquals(org.name, "Acme");
    assertEquals(h.people.tenancy.teams.get(me.teamId)!.name, "Core");

    // Leaving the admins' group takes the role away at the next sign-in.
    const again = await signInWith(h, idp, claims(["acme-people"]));
    assertEquals(again.status, 302);
    assertEquals(h.people.tenancy.people.get(me.id)!.role, "member");
    assertEquals(h.people.tenancy.people.size, 1, "the same person, not a second one");
    const trail = await h.people.audit.list({ target: me.id });
    assertEquals(trail.map((r) => r.action), ["person.update", "person.create"]);
    assertEquals([
      (trail[0]!.before as { role: string }).role,
      (trail[0]!.after as { role: string }).role,
    ], ["tenant_admin", "member"]);

    // The provider's account has no local password, and an administrator cannot give it one.
    const local = await h.app.request("/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "grace@acme.example", password: "!oidc" }),
    });
    assertEquals(local.status, 401);
    const reset = await call(
      h,
      { bearer: h.adminToken },
      "POST",
      `/api/v1/people/${me.id}/password`,
      {},
    );
    assertEquals(reset.status, 409);
  } finally {
    await h.close();
    await idp.close();
  }
});

Deno.test("OIDC: a wrong audience, an expired token, a forged signature and a wrong nonce are each refused", async () => {
  const idp = await startIdp();
  const h = await startHarness({ oidc: settings(idp.issuer) });
  try {
    const now = Math.floor(h.clock.now() / 1000);
    const good = (nonce: string): JWTPayload => ({
      iss: idp.issuer,
      aud: "llmgw",
      sub: "user-7",
      iat: now,
      exp: now + 300,
      nonce,
      email: "eve@acme.example",
      groups: [],
    });
    const cases: [string, (n: string) => JWTPayload, Signer][] = [
      ["wrong audience", (n) => ({ ...good(n), aud: "someone-else" }), "real"],
      ["expired", (n) => ({ ...good(n), iat: now - 7200, exp: now - 3600 }), "real"],
      ["forged signature", good, "forged"],
      ["wrong nonce", () => good("not-the-nonce"), "real"],
      ["wrong issuer", (n) => ({ ...good(n), iss: "https://evil.example" }), "real"],
    ];
    for (const [why, claims, signer] of cases) {
      const res = await signInWith(h, idp, claims, signer);
      assertEquals(res.status, 401, why);
      assertEquals((await res.json()).error.code, "invalid_credentials", why);
      assert(!/llmgw_session=[^;]/.test(res.headers.get("set-cookie") ?? ""), `${why}: no session`);
    }
    assertEquals(h.people.tenancy.people.size, 0, "nobody was created");
    // The same flow with a good token works, so the refusals above are the checks, not the plumbing.
    assertEquals((await signInWith(h, idp, good)).status, 302);
  } finally {
    await h.close();
    await idp.close();
  }
});

Deno.test("OIDC: a broken provider disables that sign-in only, with the reason; local sign-in still works", async () => {
  const h = await startHarness({ oidc: settings("http://127.0.0.1:9") });
  try {
    const start = await h.app.request("/auth/oidc/start");
    assertEquals(start.status, 503);
    assertEquals((await start.json()).error.code, "sign_in_unavailable");
    const status = await ok<{ oidc: { configured: boolean; ok: boolean; reason: string } }>(
      h,
      { bearer: h.adminToken },
      "GET",
      "/api/v1/sign-in",
    );
    assertEquals(status.oidc.configured, true);
    assertEquals(status.oidc.ok, false);
    assert(status.oidc.reason.length > 0);
    await makeTenant(h, "acme"); // signs three people in with local passwords
  } finally {
    await h.close();
  }
});
