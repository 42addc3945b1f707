/**
 * init's copy of the first administrator's password lasts while it is the one that works: the
 * first sign-in deletes it, and so does a reset of that password.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { firstPasswordPath } from "./first_password.ts";

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

Deno.test("a reset of the first administrator's password deletes init's copy of the old one", async () => {
  const t = await startTestControlPlane();
  try {
    const file = firstPasswordPath(t.dir);
    assert(await exists(file), "init keeps the password");
    const people = await (await t.admin("people")).json();
    const admin = people.data.find((p: { username: string }) => p.username === "admin");
    const reset = await t.admin(`people/${admin.id}/password`, { method: "POST", body: "{}" });
    assertEquals(reset.status, 200, await reset.text());
    assertEquals(await exists(file), false, "the file held a password that no longer works");
  } finally {
    await t.close();
  }
});
