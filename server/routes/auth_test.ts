import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { call, makeTenant, ok, signIn } from "../../tests/helpers/tenants.ts";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema.ts";
import { randomBytes, scryptSync } from "node:crypto";

const pw = "correct horse battery staple";
const login = (
  h: Awaited<ReturnType<typeof startHarness>>,
  email: string,
  password: string,
  addr = "10.0.0.1",
  url = "http://gw/auth/login",
) =>
  h.app.request(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  }, { remoteAddr: { hostname: addr } });

Deno.test("a session: HttpOnly, SameSite=Lax cookie (Secure over https), /auth/me, logout revokes it", async () => {
  const h = await startHarness();
  try {
    const a = await makeTenant(h, "acme");
    const res = await login(h, "mel@acme.example", pw);
    assertEquals(res.status, 200);
    const cookie = res.headers.get("set-cookie")!;
    assertMatch(cookie, /HttpOnly/);
    assertMatch(cookie, /SameSite=Lax/);
    assert(!/Secure/.test(cookie), "no Secure flag over plain http");
    const overTls = await login(h, "mel@acme.example", pw, "10.0.0.1", "https://gw/auth/login");
    assertMatch(overTls.headers.get("set-cookie")!, /Secure/);

    const cred = a.member.cred as { cookie: string; csrf: string };
    const me = await (await h.app.request("/auth/me", { headers: { cookie: cred.cookie } })).json();
    assertEquals(me.person.id, a.member.id);
    assertEquals(me.csrf, cred.csrf);
    assertEquals("passwordHash" in me.person, false);
    // Logging out needs the CSRF token, then the session is gone.
    const noToken = await h.app.request("/auth/logout", {
      method: "POST",
      headers: { cookie: cred.cookie },
    });
    assertEquals(noToken.status, 403);
    const out = await h.app.request("/auth/logout", {
      method: "POST",
      headers: { cookie: cred.cookie, "x-csrf-token": cred.csrf },
    });
    assertEquals(out.status, 200);
    assertEquals(
      (await h.app.request("/auth/me", { headers: { cookie: cred.cookie } })).status,
      401,
    );
    assertEquals((await call(h, cred, "GET", "/api/v1/keys")).status, 401);
  } finally {
    await h.close();
  }
});

Deno.test("sign-in: unknown emails take as long as wrong passwords; one address is slowed, growing, never locked", async () => {
  const h = await startHarness();
  try {
    await makeTenant(h, "acme");
    let t = performance.now();
    assertEquals((await login(h, "mel@acme.example", "wrong password", "10.9.9.9")).status, 401);
    const known = performance.now() - t;
    t = performance.now();
    const unknown = await login(h, "nobody@acme.example", "wrong password", "10.9.9.8");
    const unknownMs = performance.now() - t;
    assertEquals(unknown.status, 401);
    assertEquals((await unknown.json()).error.code, "invalid_credentials");
    // Both verify a 600,000-iteration PBKDF2 hash: neither answers early.
    assert(unknownMs > known * 0.4, `unknown email ${unknownMs} ms, wrong password ${known} ms`);

    // Ten free failures from one address (each to another account), then the waits double.
    for (let i = 1; i < 10; i++) {
      assertEquals((await login(h, `x${i}@acme.example`, "nope", "10.9.9.8")).status, 401);
    }
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const blocked = await login(h, `y${i}@acme.example`, "nope", "10.9.9.8");
      assertEquals(blocked.status, 429);
      assertEquals((await blocked.json()).error.code, "too_many_attempts");
      const wait = Number(blocked.headers.get("retry-after"));
      waits.push(wait);
      h.clock.advance(wait * 1000);
      assertEquals((await login(h, `y${i}@acme.example`, "nope", "10.9.9.8")).status, 401);
    }
    assertEquals(waits, [1, 2, 4, 8]);
    // Another address is not slowed by this one.
    assertEquals((await login(h, "mel@acme.example", pw, "10.1.2.3")).status, 200);
  } finally {
    await h.close();
  }
});

Deno.test("the owner signs in from a known browser during an attack on the account from other addresses", async () => {
  const h = await startHarness();
  try {
    await makeTenant(h, "acme");
    const owner = await login(h, "mel@acme.example", pw, "10.0.0.1");
    assertEquals(owner.status, 200);
    const mark = /llmgw_device=([^;]+)/.exec(owner.headers.get("set-cookie") ?? "")?.[1];
    assert(mark, "a device cookie marks the browser that signed in");
    const fromKnownBrowser = (addr: string) =>
      h.app.request("http://gw/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json", cookie: `llmgw_device=${mark}` },
        body: JSON.stringify({ email: "mel@acme.example", password: pw }),
      }, { remoteAddr: { hostname: addr } });

    // 50 wrong passwords from 10 addresses, 5 each, all at once.
    const attack = await Promise.all(Array.from({ length: 50 }, async (_, i) => {
      const res = await login(h, "mel@acme.example", `guess ${i}`, `10.6.6.${i % 10 + 1}`);
      await res.body?.cancel();
      return res.status;
    }));
    assert(attack.every((s) => s === 401 || s === 429), attack.join(","));
    assert(attack.includes(429), "the account is slowed for browsers that never signed in to it");
    // A browser that never signed in, right password or not, waits its turn.
    const stranger = await login(h, "mel@acme.example", pw, "10.7.7.7");
    assertEquals(stranger.status, 429);
    const wait = Number(stranger.headers.get("retry-after"));
    assert(wait >= 1 && wait <= 300, `a bounded delay, not a lock: ${wait} s`);

    // The owner's browser signs in as usual, at home and from an attacker's own address.
    assertEquals((await fromKnownBrowser("10.0.0.1")).status, 200);
    assertEquals((await fromKnownBrowser("10.6.6.1")).status, 200);
    // A forged or foreign mark is no mark.
    const forged = await h.app.request("http://gw/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `llmgw_device=${mark}x` },
      body: JSON.stringify({ email: "mel@acme.example", password: pw }),
    }, { remoteAddr: { hostname: "10.0.0.1" } });
    assertEquals(forged.status, 429);
    // Growing delays, not a lock: once the wait is over, the stranger gets in too.
    h.clock.advance(wait * 1000);
    assertEquals((await login(h, "mel@acme.example", pw, "10.7.7.7")).status, 200);
  } finally {
    await h.close();
  }
});

Deno.test("a form login needs the double-submit CSRF token", async () => {
  const h = await startHarness();
  try {
    await makeTenant(h, "acme");
    const form = (extra: Record<string, string>, cookie?: string) =>
      h.app.request("/auth/login", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          ...(cookie ? { cookie } : {}),
        },
        body: new URLSearchParams({ email: "mel@acme.example", password: pw, ...extra }).toString(),
      });
    assertEquals((await form({})).status, 403);
    // A cross-site form can send text/plain that parses as JSON: that is not a JSON login.
    const plain = await h.app.request("/auth/login", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ email: "mel@acme.example", password: pw }),
    });
    assertEquals(plain.status, 400);
    const csrf = await h.app.request("/auth/csrf");
    const token = (await csrf.json()).csrf;
    const cookie = /llmgw_csrf=([^;]+)/.exec(csrf.headers.get("set-cookie")!)![0];
    assertEquals((await form({ _csrf: "forged" }, cookie)).status, 403);
    assertEquals((await form({ _csrf: token }, cookie)).status, 200);
  } finally {
    await h.close();
  }
});

Deno.test("an old scrypt hash still signs in and is replaced by PBKDF2; an administrator resets passwords", async () => {
  const h = await startHarness();
  try {
    const a = await makeTenant(h, "acme");
    const salt = randomBytes(16);
    const old = `scrypt$16384$8$1$${salt.toString("base64url")}$${
      scryptSync("old password 123", salt, 32, { N: 16384, r: 8, p: 1 }).toString("base64url")
    }`;
    await h.store.write((tx) =>
      tx.update(users).set({ passwordHash: old }).where(eq(users.id, a.viewer.id))
    );
    assertEquals((await login(h, "vic@acme.example", "old password 123")).status, 200);
    const [row] = await h.store.db.select().from(users).where(eq(users.id, a.viewer.id));
    assertMatch(row!.passwordHash, /^pbkdf2-sha256\$600000\$/);

    const reset = await ok<{ password: string }>(
      h,
      a.admin.cred,
      "POST",
      `/api/v1/people/${a.member.id}/password`,
      {},
    );
    assertEquals(reset.password.length, 20);
    assertEquals((await login(h, "mel@acme.example", pw, "10.5.5.5")).status, 401);
    assertEquals(
      (await call(h, a.member.cred, "GET", "/api/v1/keys")).status,
      401,
      "sessions end at a reset",
    );
    await signIn(h, "mel@acme.example", reset.password);
  } finally {
    await h.close();
  }
});

Deno.test("sign-up is off unless configured", async () => {
  const closed = await startHarness();
  const open = await startHarness({ signupOpen: true });
  const body = JSON.stringify({ email: "new@x.example", password: "a long enough password" });
  const init = { method: "POST", headers: { "content-type": "application/json" }, body };
  try {
    assertEquals((await closed.app.request("/auth/signup", init)).status, 403);
    assertEquals((await open.app.request("/auth/signup", init)).status, 201);
    assertEquals((await login(open, "new@x.example", "a long enough password")).status, 200);
  } finally {
    await closed.close();
    await open.close();
  }
});

Deno.test("init's administrator, who has no email, signs in by username", async () => {
  const h = await startHarness();
  try {
    const { hashPassword } = await import("../auth/passwords.ts");
    await h.people.tenancy.createPerson({
      username: "admin",
      email: null,
      displayName: null,
      role: "administrator",
      orgId: null,
      teamId: null,
      passwordHash: await hashPassword(pw),
    });
    const res = await login(h, "admin", pw);
    assertEquals(res.status, 200);
    assertEquals((await res.json()).person.role, "administrator");
  } finally {
    await h.close();
  }
});
