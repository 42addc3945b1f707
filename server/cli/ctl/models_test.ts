import { assertEquals } from "../../../tests/assert.ts";
import { replicaSummary } from "./models.ts";

Deno.test("ctl models list shows each replica's load; an unread report is '?', not zero", () => {
  assertEquals(replicaSummary([]), "-");
  assertEquals(
    replicaSummary([
      {
        id: "r1",
        state: "ready",
        inFlight: 2,
        slots: 4,
        breaker: "closed",
        load: { known: true, kvCacheUsage: 0.5, waiting: 1 },
      },
      {
        id: "r2",
        state: "starting",
        inFlight: 0,
        slots: 4,
        breaker: "open",
        load: { known: false },
      },
      { id: "external:gpt#1", state: "ready", inFlight: 9, slots: null, load: { known: false } },
    ]),
    "r1 ready 2/4 kv 50% waiting 1; r2 starting 0/4 kv ? waiting ? breaker open; " +
      "external:gpt#1 ready 9/∞ kv ? waiting ?",
  );
});
