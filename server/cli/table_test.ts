import { assertEquals, assertMatch } from "../../tests/assert.ts";
import { cellText, changes, localDate, named, renderTable, when } from "./table.ts";
import { auditText } from "./ctl/audit.ts";
import { nodeText } from "./ctl/nodes.ts";

const now = Date.parse("2026-12-01T12:00:00Z");

Deno.test("times read as 'N min ago' within a day, as a local date further off", () => {
  assertEquals(when(null, now), "-");
  assertEquals(when(now - 2_000, now), "just now");
  assertEquals(when(now - 45_000, now), "45 s ago");
  assertEquals(when(now - 3 * 60_000, now), "3 min ago");
  assertEquals(when(now - 5 * 3_600_000, now), "5 h ago");
  assertEquals(when(now + 10 * 60_000, now), "in 10 min");
  const old = now - 3 * 86_400_000;
  assertEquals(when(old, now), localDate(old));
  assertMatch(localDate(old), /^2026-11-(27|28|29) \d\d:\d\d$/);
});

Deno.test("cells hold words, not JSON; names stand beside ids", () => {
  assertEquals(cellText({ zone: "a", gpu: "a100" }), "zone=a, gpu=a100");
  assertEquals(cellText(["x", "y"]), "x, y");
  assertEquals(cellText([]), "-");
  assertEquals(cellText(undefined), "-");
  const names = new Map([["prj_1", "Research"]]);
  assertEquals(named("prj_1", names), "Research (prj_1)");
  assertEquals(named("prj_2", names), "prj_2");
  assertEquals(named(null, names), "-");
  assertEquals(
    renderTable(["ID", "Name"], [["1", "alpha"], ["22", "b"]]),
    "ID  Name\n1   alpha\n22  b",
  );
});

Deno.test("ctl audit lists each change's fields before → after, with the target's name", () => {
  assertEquals(changes({ rpm: 60, tpm: 100 }, { rpm: 600, tpm: 100 }), ["rpm: 60 → 600"]);
  assertEquals(changes(null, { name: "Research", teamId: "t1" }), [
    "name: (none) → Research",
    "teamId: (none) → t1",
  ]);
  assertEquals(changes({ limits: { models: ["a"] } }, { limits: { models: ["a", "b"] } }), [
    "limits.models: a → a, b",
  ]);
  const text = auditText([{
    at: now - 180_000,
    actorName: "admin",
    action: "limits.update",
    targetKind: "project",
    targetId: "prj_1",
    before: { name: "Research", rpm: 60 },
    after: { name: "Research", rpm: 600 },
  }, {
    at: now - 240_000,
    actorName: "admin",
    action: "settings.set",
    targetKind: "settings",
    targetId: "settings",
    before: { "router.max_attempts": 2 },
    after: { "router.max_attempts": 3 },
  }], now);
  assertEquals(
    text,
    [
      "When       Who    Action         Target",
      "3 min ago  admin  limits.update  project Research (prj_1)",
      "    rpm: 60 → 600",
      "4 min ago  admin  settings.set   settings",
      "    router.max_attempts: 2 → 3",
    ].join("\n"),
  );
  assertEquals(text.includes("{"), false, "no JSON");
});

Deno.test("ctl nodes show reads as lines of facts, not JSON", () => {
  const text = nodeText({
    id: "n1",
    name: "gpu-1",
    state: "ready",
    labels: { zone: "a" },
    version: "0.1.0",
    lastHeardAt: now - 5_000,
    gpu: {
      source: "nvml",
      gpus: [{ name: "H100", memoryFreeBytes: 70 * 2 ** 30, memoryTotalBytes: 80 * 2 ** 30 }],
    },
    engines: [{ name: "llamacpp", version: "b4600" }],
    host: { cores: 16, ramAvailableBytes: 64 * 2 ** 30 },
    replicas: [{ replicaId: "s-1", model: "tiny", state: "ready", pid: 42 }],
    warnings: ["disk low"],
  }, now);
  assertEquals(
    text,
    [
      "Node gpu-1 (n1): ready, version 0.1.0, last heard 5 s ago",
      "  Labels:   zone=a",
      "  Host:     16 cores, 64.0 GiB free",
      "  GPUs:     H100 70.0/80.0 GiB free (from nvml)",
      "  Engines:  llamacpp b4600",
      "  Replicas:",
      "    s-1  tiny  ready  pid 42",
      "  Warning:  disk low",
    ].join("\n"),
  );
});
