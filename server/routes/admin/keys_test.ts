import { assertEquals, assertMatch } from "../../../tests/assert.ts";
import { startHarness } from "../../../tests/helpers/harness.ts";
import { call, makeTenant, ok } from "../../../tests/helpers/tenants.ts";

const day = 86_400_000;

Deno.test("a key's expiry is capped by the longest lifetime set at any level above", async () => {
  const h = await startHarness();
  try {
    const a = await makeTenant(h, "acme");
    await ok(h, { bearer: h.adminToken }, "PATCH", `/api/v1/limits/org/${a.org.id}`, {
      max_key_ttl_ms: 90 * day,
    });
    await ok(h, a.admin.cred, "PATCH", `/api/v1/limits/team/${a.team.id}`, {
      max_key_ttl_ms: 30 * day,
    });
    const now = h.clock.now();
    // No expiry asked: the cap becomes the expiry.
    const capped = await ok<{ expiresAt: number }>(h, a.member.cred, "POST", "/api/v1/keys", {
      name: "default",
      project_id: a.project.id,
    });
    assertEquals(capped.expiresAt, now + 30 * day);
    // Longer than the tightest level allows: refused, naming that level.
    const long = await call(h, a.member.cred, "POST", "/api/v1/keys", {
      name: "long",
      project_id: a.project.id,
      expires_at: now + 60 * day,
    });
    assertEquals(long.status, 400);
    const body = await long.json();
    assertEquals(body.error.param, "expires_at");
    assertMatch(body.error.message, /30 days, team 'core'/);
    // Shorter is fine; an expired key stops at once.
    const short = await ok<{ key: string }>(h, a.member.cred, "POST", "/api/v1/keys", {
      name: "short",
      project_id: a.project.id,
      expires_at: now + 1000,
    });
    const use = () =>
      h.v1("/models", undefined, { headers: { authorization: `Bearer ${short.key}` } });
    assertEquals((await use()).status, 200);
    h.clock.advance(1000);
    assertEquals((await use()).status, 401);
  } finally {
    await h.close();
  }
});

Deno.test("suspending a person stops their keys and sessions at once", async () => {
  const h = await startHarness();
  try {
    const a = await makeTenant(h, "acme");
    const chat = { model: "demo", max_tokens: 2, messages: [{ role: "user", content: "hi" }] };
    const key = { authorization: `Bearer ${a.member.key}` };
    const before = await h.v1("/chat/completions", chat, { headers: key });
    assertEquals(before.status, 200);
    await before.text();
    await ok(h, a.admin.cred, "PATCH", `/api/v1/people/${a.member.id}`, { state: "suspended" });
    assertEquals((await h.v1("/chat/completions", chat, { headers: key })).status, 401);
    assertEquals((await call(h, a.member.cred, "GET", "/api/v1/keys")).status, 401);
    // A tenant administrator's sessions can be ended by the administrator.
    await ok(h, { bearer: h.adminToken }, "DELETE", `/api/v1/people/${a.admin.id}/sessions`);
    assertEquals((await call(h, a.admin.cred, "GET", "/api/v1/people")).status, 401);
  } finally {
    await h.close();
  }
});
