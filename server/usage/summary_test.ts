/**
 * Usage for finance: `ctl usage` against a real control plane sums exactly what the usage rows
 * hold, by key, model and day, in table, CSV and JSON; the per-day sums survive the raw rows'
 * retention; a store made before the sums existed is summed at start; a year answers fast.
 */
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { ctlCommand } from "../cli/ctl/mod.ts";
import { usage, usageDaily } from "../../db/schema.ts";
import { storeTest } from "../../tests/helpers/stores.ts";
import { backfillDaily, pruneUsage, utcDay } from "./daily.ts";
import { summarizeUsage } from "./summary.ts";
import { UsageRecorder } from "./recorder.ts";
import { silentLogger } from "../../core/log.ts";

async function captured(fn: () => Promise<number>): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const orig = console.log;
  console.log = (...a: unknown[]) => lines.push(a.join(" "));
  try {
    return { code: await fn(), out: lines.join("\n") };
  } finally {
    console.log = orig;
  }
}

Deno.test("ctl usage --by project and --by team: sums match the rows of the keys each owns", async () => {
  const t = await startTestControlPlane();
  try {
    const tenancy = t.cp.deps.people.tenancy;
    const org = await tenancy.createOrg("Acme");
    const red = await tenancy.createTeam(org.id, "Red");
    const blue = await tenancy.createTeam(org.id, "Blue");
    const alpha = await tenancy.createProject(red.id, "alpha");
    const beta = await tenancy.createProject(blue.id, "beta");
    const ann = await tenancy.createPerson({
      username: "ann",
      email: null,
      displayName: null,
      role: "member",
      orgId: org.id,
      teamId: blue.id,
      passwordHash: "!",
    });
    const keys = t.cp.deps.keys;
    // A project's service key, a person's key within a project, a person's key in no project.
    const service = await keys.create({ name: "svc", projectId: alpha.id });
    const inBeta = await keys.create({ name: "ann-beta", userId: ann.id, projectId: beta.id });
    const loose = await keys.create({ name: "ann-own", userId: ann.id });
    const send = async (key: string, n: number) => {
      for (let i = 0; i < n; i++) {
        const r = await t.chat(
          { model: "demo", messages: [{ role: "user", content: "tally ".repeat(i + 2) }] },
          { authorization: `Bearer ${key}` },
        );
        assertEquals(r.status, 200);
        await r.body?.cancel();
      }
    };
    await send(service.key, 3);
    await send(inBeta.key, 2);
    await send(loose.key, 1);
    await send(t.key, 2);
    await t.cp.usage.flush();
    const rows = await t.cp.deps.store.db.select().from(usage);
    assertEquals(rows.length, 8);
    const base = ["--url", t.cp.url, "--token", t.adminToken];
    const summed = async (by: string) => {
      const r = await captured(() =>
        ctlCommand.run(["usage", "--by", by, "--format", "json", ...base])
      );
      assertEquals(r.code, 0);
      return JSON.parse(r.out) as {
        rows: { group: string; requests: number; promptTokens: number; costMicros: number }[];
        total: { requests: number };
      };
    };
    const check = async (by: string, owner: Record<string, string>) => {
      const s = await summed(by);
      const groups = new Set(Object.values(owner));
      assertEquals(s.rows.map((r) => r.group).sort(), [...groups].sort());
      for (const r of s.rows) {
        const mine = rows.filter((u) => owner[u.keyId ?? ""] === r.group);
        assert(mine.length > 0);
        assertEquals(r.requests, mine.length);
        assertEquals(r.promptTokens, mine.reduce((a, u) => a + u.promptTokens, 0));
        assertEquals(r.costMicros, mine.reduce((a, u) => a + u.costMicros, 0));
      }
      assertEquals(s.total.requests, 8);
    };
    const plain = rows.find((u) =>
      u.keyId !== service.id && u.keyId !== inBeta.id &&
      u.keyId !== loose.id
    )!.keyId!;
    await check("project", {
      [service.id]: alpha.id,
      [inBeta.id]: beta.id,
      [loose.id]: "",
      [plain]: "",
    });
    await check("team", {
      [service.id]: red.id,
      [inBeta.id]: blue.id,
      [loose.id]: blue.id,
      [plain]: "",
    });
    const team = await summed("team");
    assertEquals(team.rows.find((r) => r.group === blue.id)!.requests, 3);
  } finally {
    await t.close();
  }
});

Deno.test("ctl usage: sums match the usage rows, by key, model and day, in every format", async () => {
  const t = await startTestControlPlane();
  try {
    const other = await t.cp.deps.keys.create({ name: "other" });
    const send = async (key: string, n: number) => {
      for (let i = 0; i < n; i++) {
        const r = await t.chat(
          {
            model: "demo",
            messages: [{ role: "user", content: "count these words ".repeat(i + 1) }],
          },
          { authorization: `Bearer ${key}` },
        );
        await r.body?.cancel();
      }
    };
    await send(t.key, 3);
    await send(other.key, 2);
    await t.cp.usage.flush();
    const rows = await t.cp.deps.store.db.select().from(usage);
    assertEquals(rows.length, 5);
    const base = ["--url", t.cp.url, "--token", t.adminToken];

    const byKey = await captured(() =>
      ctlCommand.run(["usage", "--by", "key", "--format", "json", ...base])
    );
    assertEquals(byKey.code, 0);
    const s = JSON.parse(byKey.out);
    for (const r of s.rows) {
      const mine = rows.filter((u) => u.keyId === r.group);
      assertEquals(r.requests, mine.length);
      assertEquals(r.promptTokens, mine.reduce((a, u) => a + u.promptTokens, 0));
      assertEquals(r.completionTokens, mine.reduce((a, u) => a + u.completionTokens, 0));
      assertEquals(r.costMicros, mine.reduce((a, u) => a + u.costMicros, 0));
    }
    assertEquals(s.rows.length, 2);
    assertEquals(s.total.requests, 5);
    assertEquals(s.total.promptTokens, rows.reduce((a, u) => a + u.promptTokens, 0));

    const csv = await captured(() =>
      ctlCommand.run(["usage", "--by", "model", "--format", "csv", ...base])
    );
    // Records end in CRLF; the last one's LF is console.log's, which this capture leaves out.
    assertMatch(csv.out, /\r$/);
    const [head, line] = csv.out.slice(0, -1).split("\r\n");
    assertEquals(
      head,
      "model,requests,errors,prompt_tokens,cached_tokens,completion_tokens,cost_micros,cost_USD",
    );
    assertMatch(line!, /^demo,5,0,\d+,\d+,\d+,\d+,\d+\.\d{6}$/);

    const table = await captured(() => ctlCommand.run(["usage", "--by", "day", ...base]));
    assertMatch(table.out, new RegExp(`${utcDay(Date.now())}\\s+5\\s`));
    assertMatch(table.out, /TOTAL\s+5\s/);

    const badDay = await t.admin("usage/summary?since=yesterday-ish");
    assertEquals(badDay.status, 400);
  } finally {
    await t.close();
  }
});

storeTest(
  "usage sums: kept past retention, backfilled once, a year answers in under a second",
  async (store) => {
    {
      const day = 86_400_000;
      const now = Date.parse("2026-06-30T12:00:00Z");
      const row = (at: number, keyId: string, prompt: number) => ({
        id: crypto.randomUUID(),
        requestId: "r",
        at,
        keyId,
        model: "m",
        endpoint: "/chat/completions",
        promptTokens: prompt,
        completionTokens: 1,
        status: 200,
        latencyMs: 1,
        stream: false,
        costMicros: 7,
      });
      // Rows written before the per-day table existed: summed once at start.
      await store.write((tx) =>
        tx.insert(usage).values([row(now - 40 * day, "k1", 10), row(now - 1 * day, "k1", 5)])
      );
      assertEquals(await backfillDaily(store), 2);
      assertEquals(await backfillDaily(store), 0);

      // New rows go through the recorder, which keeps the sums in the same transaction.
      const rec = new UsageRecorder({
        store,
        logger: silentLogger,
        flushMs: 3_600_000,
        batchSize: 2,
      });
      for (let i = 0; i < 3; i++) {
        const { id: _id, ...r } = row(now, "k2", 1);
        rec.record(r);
      }
      await rec.close();

      assertEquals(await pruneUsage(store, now, 30), 1);
      const left = await store.db.select().from(usage);
      assertEquals(left.length, 4);
      const s = await summarizeUsage(store, {
        since: "2026-01-01",
        until: "2026-12-31",
        by: "key",
      });
      assertEquals(s.rows.find((r) => r.group === "k1")?.promptTokens, 15);
      assertEquals(s.rows.find((r) => r.group === "k2")?.requests, 3);

      // A year of a busy cluster: 365 days x 40 keys x 8 models of sums.
      const entries: (typeof usageDaily.$inferInsert)[] = [];
      for (let d = 0; d < 365; d++) {
        for (let k = 0; k < 40; k++) {
          for (let m = 0; m < 8; m++) {
            entries.push({
              day: utcDay(Date.parse("2025-01-01T00:00:00Z") + d * day),
              keyId: `key${k}`,
              model: `model${m}`,
              requests: 100,
              errors: 1,
              promptTokens: 1000,
              cachedTokens: 10,
              completionTokens: 500,
              costMicros: 42,
            });
          }
        }
      }
      for (let i = 0; i < entries.length; i += 2000) {
        await store.write((tx) => tx.insert(usageDaily).values(entries.slice(i, i + 2000)));
      }
      const started = performance.now();
      const year = await summarizeUsage(store, {
        since: "2025-01-01",
        until: "2025-12-31",
        by: "model",
      });
      const ms = performance.now() - started;
      assertEquals(year.total.requests, 365 * 40 * 8 * 100);
      assertEquals(year.rows.length, 8);
      assert(ms < 1000, `a year's summary took ${ms.toFixed(0)} ms`);
      console.log(
        `a year's summary (${entries.length} day sums, ${store.dialect}): ${ms.toFixed(0)} ms`,
      );
    }
  },
);
