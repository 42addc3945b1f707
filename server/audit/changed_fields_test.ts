import { assertEquals } from "../../tests/assert.ts";
import { changedFields } from "./changed_fields.ts";

Deno.test("changed fields: only what differs, made and removed fields, long values cut", () => {
  assertEquals(changedFields({ rpm: 60, tpm: 5, name: "a" }, { rpm: 600, tpm: 5 }), [
    { field: "rpm", before: "60", after: "600" },
    { field: "name", before: "a", after: null },
  ]);
  assertEquals(changedFields(null, { id: "k1", state: "active", email: null, createdAt: 5 }), [
    { field: "state", before: null, after: "active" },
  ]);
  assertEquals(changedFields({ stopped: false, updatedAt: 1 }, { stopped: true, updatedAt: 2 }), [
    { field: "stopped", before: "false", after: "true" },
  ]);
  assertEquals(changedFields({ x: [1, 2] }, { x: [1, 2] }), []);
  const long = changedFields(null, { v: "x".repeat(200) })[0]!.after!;
  assertEquals(long.length, 80);
  assertEquals(changedFields("old", "new"), [{ field: "", before: "old", after: "new" }]);
});
