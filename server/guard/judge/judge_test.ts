/**
 * Judges through the real app: a guard model in the catalog (the `judge` role), its replicas real
 * simulated engines in judge mode on loopback ports, each "on" the node its route id names, and
 * policies set through the admin API. The test picks each judge's verdicts and speed.
 */
import { assert, assertEquals } from "../../../tests/assert.ts";
import { type Harness, startHarness } from "../../../tests/helpers/harness.ts";
import {
  addReplica,
  chat,
  engineKey,
  fakeServer,
  usageRows,
} from "../../../tests/helpers/routing.ts";
import { type RunningSimEngine, startSimJudge } from "../../../tests/helpers/sim_judge.ts";
import type { JudgeFormatName } from "../../../core/judge_formats.ts";
import { startEchoEngine } from "../../../tests/helpers/echo_engine.ts";

interface JudgeSpec {
  /** Route id: `node/replica`, so the node is the machine it runs on. */
  id: string;
  unsafeWhen?: string[];
  delayMs?: number;
}

async function withJudges(
  format: JudgeFormatName,
  specs: JudgeSpec[],
  fn: (h: Harness, judges: RunningSimEngine[]) => Promise<void>,
): Promise<void> {
  const h = await startHarness();
  const judges: RunningSimEngine[] = [];
  try {
    await h.deps.catalog.upsert({ name: "guard", engine: "sim", source: "", judge: format });
    for (const s of specs) {
      const e = await startSimJudge(
        { format, unsafeWhen: s.unsafeWhen ?? ["bomb"], delayMs: s.delayMs ?? 0 },
        engineKey,
      );
      judges.push(e);
      addReplica(h, s.id, e.url, { model: "guard", apiKey: engineKey });
    }
    await fn(h, judges);
  } finally {
    await h.close();
    for (const e of judges) await e.close();
  }
}

async function putJudgePolicy(h: Harness, rule: Record<string, unknown>) {
  const res = await h.admin("PUT", "guard/policies/safety", {
    scope: { kind: "global", id: "global" },
    apply_to: "input",
    rules: [{ name: "judge", kind: "judge", action: "block", model: "guard", ...rule }],
  });
  assertEquals(res.status, 201, await res.text());
}

/** A sim engine's own counts: judgments answered, and requests its client gave up on. */
async function judged(e: RunningSimEngine): Promise<{ answered: number; cancelled: number }> {
  const text = await (await fetch(`${e.url}/metrics`, {
    headers: { authorization: `Bearer ${engineKey}` },
  })).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\d+)`, "m").exec(text)?.[1]);
  return {
    answered: read("llmgw_sim_requests_total"),
    cancelled: read("llmgw_sim_requests_cancelled_total"),
  };
}

async function timed(p: Promise<Response>): Promise<[Response, number]> {
  const t0 = performance.now();
  const res = await p;
  return [res, performance.now() - t0];
}

Deno.test("a judge that answers: unsafe blocks with 400 naming policy and rule, safe passes; verdicts on usage and metrics", async () => {
  await withJudges("llama-guard-3", [{ id: "n1/j" }], async (h) => {
    await putJudgePolicy(h, { budget_ms: 3000 });
    const blocked = await h.v1("/chat/completions", chat("how do I build a bomb"));
    const body = await blocked.json();
    assertEquals(blocked.status, 400, JSON.stringify(body));
    assertEquals(body.error.code, "guardrail_blocked");
    assert(body.error.message.includes("'safety'") && body.error.message.includes("'judge'"));
    assert(!body.error.message.includes("bomb"));
    const ok = await h.v1("/chat/completions", chat("how do I bake bread"));
    assertEquals(ok.status, 200, await ok.text());

    const rows = await usageRows(h);
    const verdict = rows.find((r) => r.status === 400)!.guard?.[0];
    assertEquals(verdict?.policy, "safety");
    assertEquals(verdict?.rule, "judge");
    assertEquals(verdict?.action, "block");
    assert(verdict!.latencyUs > 0 && verdict!.fail === undefined, JSON.stringify(verdict));
    assertEquals(rows.find((r) => r.status === 200)!.guard, null);
    const lines: string[] = [];
    h.deps.metrics.guardVerdicts.render(lines);
    h.deps.metrics.guardJudge.render(lines);
    const text = lines.join("\n");
    assert(
      text.includes('llmgw_guard_verdicts_total{policy="safety",rule="judge",action="block"} 1'),
      text,
    );
    assert(
      text.includes('llmgw_guard_judge_seconds_count{model="guard",outcome="unsafe"} 1'),
      text,
    );
    assert(text.includes('llmgw_guard_judge_seconds_count{model="guard",outcome="safe"} 1'), text);
  });
});

Deno.test("a Qwen3Guard judge under a flag rule: an unsafe request goes on, recorded as flagged", async () => {
  await withJudges("qwen3guard", [{ id: "n1/j" }], async (h) => {
    await putJudgePolicy(h, { action: "flag", budget_ms: 3000 });
    const res = await h.v1("/chat/completions", chat("a bomb, please"));
    assertEquals(res.status, 200, await res.text());
    const [row] = await usageRows(h);
    assertEquals(row!.guard?.map((v) => [v.rule, v.action]), [["judge", "flag"]]);
  });
});

Deno.test("a slow judge with fail: open lets the request through at the budget, recorded as not judged", async () => {
  await withJudges("llama-guard-3", [{ id: "n1/j", delayMs: 3000 }], async (h) => {
    await putJudgePolicy(h, { budget_ms: 300, fail: "open" });
    const [res, ms] = await timed(h.v1("/chat/completions", chat("a bomb, please")));
    assertEquals(res.status, 200, await res.text());
    assert(ms >= 280 && ms < 2500, `answered after ${ms} ms`);
    const [row] = await usageRows(h);
    assertEquals(row!.guard?.map((v) => [v.rule, v.action, v.fail]), [["judge", "flag", "open"]]);
  });
});

Deno.test("a slow judge with fail: closed refuses with 503 guardrail_unavailable at the budget", async () => {
  await withJudges("llama-guard-3", [{ id: "n1/j", delayMs: 3000 }], async (h) => {
    await putJudgePolicy(h, { budget_ms: 300 });
    const [res, ms] = await timed(h.v1("/chat/completions", chat("bake some bread")));
    const body = await res.json();
    assertEquals(res.status, 503, JSON.stringify(body));
    assertEquals(body.error.code, "guardrail_unavailable");
    assert(ms >= 280 && ms < 2500, `answered after ${ms} ms`);
    const [row] = await usageRows(h);
    assertEquals(row!.status, 503);
    assertEquals(row!.guard?.map((v) => [v.rule, v.action, v.fail]), [[
      "judge",
      "block",
      "closed",
    ]]);
  });
});

Deno.test("hedged: at half the budget a replica on another node is asked too, its verdict wins, the first is not cancelled", async () => {
  await withJudges("llama-guard-3", [
    // Asked first (the first one added); it would call the text safe, too late.
    { id: "n1/j", delayMs: 900, unsafeWhen: [] },
    { id: "n2/j", unsafeWhen: ["bomb"] },
  ], async (h, [slow, fast]) => {
    await putJudgePolicy(h, { budget_ms: 1000 });
    const [res, ms] = await timed(h.v1("/chat/completions", chat("a bomb, please")));
    assertEquals(res.status, 400, await res.text());
    assert(ms >= 480 && ms < 900, `answered after ${ms} ms`);
    assertEquals(await judged(fast!), { answered: 1, cancelled: 0 });
    // The first replica goes on to answer its question.
    for (let i = 0; i < 40 && (await judged(slow!)).answered === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assertEquals(await judged(slow!), { answered: 1, cancelled: 0 });
  });
});

Deno.test("hedged only to another machine: a second replica on the first one's node is not asked", async () => {
  await withJudges("llama-guard-3", [
    { id: "n1/a", delayMs: 900 },
    { id: "n1/b" },
  ], async (h, [, sameNode]) => {
    await putJudgePolicy(h, { budget_ms: 600, fail: "open" });
    const res = await h.v1("/chat/completions", chat("a bomb, please"));
    assertEquals(res.status, 200, await res.text());
    assertEquals((await judged(sameNode!)).answered, 0);
    const [row] = await usageRows(h);
    assertEquals(row!.guard?.[0]?.fail, "open");
  });
});

Deno.test("a judge is asked without prompt cache or affinity, and every time (no answer cache)", async () => {
  await withJudges("llama-guard-3", [{ id: "x/real" }], async (h, [real]) => {
    h.deps.replicas.remove("x/real");
    const seen: { replica: string; body: Record<string, unknown> }[] = [];
    const proxies = ["n1", "n2"].map((node) =>
      fakeServer(async (req) => {
        const text = await req.text();
        seen.push({ replica: node, body: JSON.parse(text) });
        return await fetch(`${real!.url}${new URL(req.url).pathname}`, {
          method: "POST",
          headers: req.headers,
          body: text,
        });
      })
    );
    try {
      proxies.forEach((p, i) =>
        addReplica(h, `n${i + 1}/j`, p.url, { model: "guard", apiKey: engineKey })
      );
      await putJudgePolicy(h, { budget_ms: 3000 });
      for (let i = 0; i < 4; i++) {
        const res = await h.v1("/chat/completions", chat("the very same question, a long one"));
        assertEquals(res.status, 200, await res.text());
      }
      assertEquals(seen.length, 4);
      assert(seen.every((s) => s.body.cache_prompt === false), JSON.stringify(seen));
      // The same prompt again and again stays on no one replica.
      assertEquals(new Set(seen.map((s) => s.replica)).size, 2);
    } finally {
      for (const p of proxies) await p.close();
    }
  });
});

Deno.test("a judge that is not there yet, or fails, is asked again while the budget lasts", async () => {
  await withJudges("llama-guard-3", [{ id: "n2/j" }], async (h, [judge]) => {
    h.deps.replicas.remove("n2/j");
    const broken = fakeServer(() => new Response("no", { status: 500 }));
    try {
      addReplica(h, "n1/broken", broken.url, { model: "guard", apiKey: engineKey });
      await putJudgePolicy(h, { budget_ms: 3000 });
      // Only a broken judge at first; a working one comes up 400 ms later (a new leader's nodes).
      setTimeout(
        () => addReplica(h, "n2/j", judge!.url, { model: "guard", apiKey: engineKey }),
        400,
      );
      const [res, ms] = await timed(h.v1("/chat/completions", chat("a bomb, please")));
      assertEquals(res.status, 400, await res.text());
      assert(ms >= 380 && ms < 2500, `answered after ${ms} ms`);
      assert(broken.hits() >= 2, `the broken judge asked ${broken.hits()} time(s)`);
      assertEquals((await judged(judge!)).answered, 1);
    } finally {
      await broken.close();
    }
  });
});

Deno.test("a judge rule naming a model without the judge role fails as its rule says", async () => {
  await withJudges("llama-guard-3", [{ id: "n1/j" }], async (h) => {
    await h.deps.catalog.setJudge("guard", null);
    await putJudgePolicy(h, { budget_ms: 200 });
    const res = await h.v1("/chat/completions", chat("hello"));
    assertEquals(res.status, 503, await res.text());
  });
});

Deno.test("an output judge reads the whole answer (not the question) and blocks it before the client sees it", async () => {
  await withJudges("llama-guard-3", [{ id: "n1/j" }], async (h) => {
    const res = await h.admin("PUT", "guard/policies/answers", {
      scope: { kind: "global", id: "global" },
      apply_to: "output",
      rules: [{ name: "judge", kind: "judge", action: "block", model: "guard", budget_ms: 3000 }],
    });
    assertEquals(res.status, 201, await res.text());
    // The question holds the word, the simulated model's answer does not: it passes.
    const fine = await h.v1("/chat/completions", chat("tell me about a bomb"));
    assertEquals(fine.status, 200, await fine.text());
    const echo = startEchoEngine({ prefix: "here is how to build a bomb: " });
    try {
      h.deps.replicas.remove("r1");
      addReplica(h, "echo", echo.url);
      const cut = await h.v1("/chat/completions", chat("hello there"));
      const body = await cut.json();
      assertEquals(cut.status, 400, JSON.stringify(body));
      assertEquals(body.error.code, "guardrail_blocked");
      assert(!JSON.stringify(body).includes("bomb"), "nothing of the answer reaches the client");
    } finally {
      await echo.close();
    }
    const rows = await usageRows(h);
    assertEquals(rows.map((r) => r.guard?.[0]?.action ?? null), [null, "block"]);
  });
});

Deno.test("under stream: buffer_all an output judge reads the whole streamed answer and stops it before any of it is sent; without it, a stream is not judged", async () => {
  await withJudges("llama-guard-3", [{ id: "n1/j" }], async (h) => {
    const policy = (stream?: string) =>
      h.admin("PUT", "guard/policies/answers", {
        scope: { kind: "global", id: "global" },
        apply_to: "output",
        ...(stream ? { stream } : {}),
        rules: [{ name: "judge", kind: "judge", action: "block", model: "guard", budget_ms: 3000 }],
      });
    const set = await policy("buffer_all");
    assertEquals(set.status, 201, await set.text());
    const echo = startEchoEngine({ prefix: "here is how to build a bomb: " });
    try {
      h.deps.replicas.remove("r1");
      addReplica(h, "echo", echo.url);
      const cut = await h.v1("/chat/completions", chat("hello there", { stream: true }));
      const text = await cut.text();
      assert(text.includes("guardrail_blocked"), text);
      assert(!text.includes("bomb"), "nothing of the held answer reaches the client");
      assert(!text.includes("[DONE]"), "a stopped answer does not end as a whole one");

      const again = await policy();
      assert(again.ok, await again.text());
      const sent = await (await h.v1("/chat/completions", chat("hello there", { stream: true })))
        .text();
      assert(
        sent.includes("[DONE]") && !sent.includes("guardrail_blocked"),
        `not held back: sent whole, not judged: ${sent.slice(0, 200)}`,
      );
    } finally {
      await echo.close();
    }
  });
});
