/**
 * The JSON batch insert stores exactly what Drizzle's own insert stores: every column, nulls,
 * booleans, and the defaults of fields a row leaves out.
 */
import { assertEquals } from "../../tests/assert.ts";
import { storeTest } from "../../tests/helpers/stores.ts";
import { usage } from "../../db/schema.ts";
import { insertUsageRows } from "./insert_usage_rows.ts";

storeTest(
  "usage rows: the JSON batch insert matches Drizzle's insert column for column",
  async (store) => {
    {
      const full = {
        requestId: "req-1",
        at: 1_796_000_000_123,
        keyId: "key-1",
        model: "m",
        endpoint: "/chat/completions",
        promptTokens: 12,
        completionTokens: 34,
        status: 200,
        latencyMs: 56,
        ttftMs: 7,
        stream: true,
        servedModel: "m-fallback",
        cachedTokens: 5,
        costMicros: 9_007_199_254,
        queueMs: 3,
        replicaId: "node/replica",
        profile: "chat",
      };
      const sparse = {
        requestId: "req-2",
        at: 1_796_000_000_456,
        keyId: null,
        model: "m",
        endpoint: "/embeddings",
        promptTokens: 0,
        completionTokens: 0,
        status: 499,
        latencyMs: 1,
        ttftMs: null,
        stream: false,
        servedModel: null,
      };
      const rows = [
        { id: "a1", ...full },
        { id: "a2", ...sparse },
      ];
      await store.write((tx) => insertUsageRows(store, tx, rows));
      await store.write((tx) =>
        tx.insert(usage).values(rows.map((r) => ({ ...r, id: r.id.replace("a", "b") })))
      );
      const all = await store.db.select().from(usage).orderBy(usage.id);
      const ours = all.filter((r) => r.id.startsWith("a"));
      const drizzles = all.filter((r) => r.id.startsWith("b")).map((r) => ({
        ...r,
        id: r.id.replace("b", "a"),
      }));
      assertEquals(ours.length, 2);
      assertEquals(ours, drizzles);
      assertEquals(ours[1]!.cachedTokens, 0);
      assertEquals(ours[0]!.stream, true);
    }
  },
);
