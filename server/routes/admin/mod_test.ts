import { assert, assertEquals } from "../../../tests/assert.ts";
import { startHarness } from "../../../tests/helpers/harness.ts";

Deno.test("the admin API refuses requests without a valid admin token", async () => {
  const h = await startHarness();
  try {
    assertEquals((await h.app.request("/api/v1/keys")).status, 401);
    const withApiKey = await h.app.request("/api/v1/keys", {
      headers: { authorization: `Bearer ${h.key}` },
    });
    assertEquals(withApiKey.status, 401);
  } finally {
    await h.close();
  }
});

Deno.test("a key made through the admin API is shown once, listed by prefix, and works", async () => {
  const h = await startHarness();
  try {
    const res = await h.admin("POST", "keys", { name: "alice" });
    assertEquals(res.status, 201);
    const created = await res.json();
    assert(created.key.startsWith("sk-llmgw-"));
    assert(created.key.startsWith(created.prefix));
    const list = await (await h.admin("GET", "keys")).json();
    const listed = list.data.find((k: { id: string }) => k.id === created.id);
    assertEquals(listed.name, "alice");
    assertEquals("key" in listed, false);
    assertEquals(JSON.stringify(list).includes(created.key), false);
    const use = await h.v1("/models", undefined, {
      headers: { authorization: `Bearer ${created.key}` },
    });
    assertEquals(use.status, 200);
  } finally {
    await h.close();
  }
});

Deno.test("creating a key with a bad body names the field", async () => {
  const h = await startHarness();
  try {
    const res = await h.admin("POST", "keys", { name: "" });
    assertEquals(res.status, 400);
    assertEquals((await res.json()).error.param, "name");
    const extra = await h.admin("POST", "keys", { name: "x", admin: true });
    assertEquals(extra.status, 400);
  } finally {
    await h.close();
  }
});
