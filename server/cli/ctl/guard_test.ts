import { assert, assertEquals } from "../../../tests/assert.ts";
import { startTestControlPlane } from "../../../tests/helpers/control_plane.ts";
import { ctlCommand } from "./mod.ts";
import { startSimJudge } from "../../../tests/helpers/sim_judge.ts";

async function ctl(args: string[]) {
  const lines: string[] = [];
  const orig = console.log;
  console.log = (...a: unknown[]) => lines.push(a.join(" "));
  try {
    return { code: await ctlCommand.run(args), out: lines.join("\n") };
  } finally {
    console.log = orig;
  }
}

Deno.test("ctl guard set, list and test: what a policy does to a text, through a real control plane", async () => {
  const t = await startTestControlPlane();
  const dir = await Deno.makeTempDir();
  try {
    const base = ["--url", t.cp.url, "--token", t.adminToken];
    await Deno.writeTextFile(
      `${dir}/p.json`,
      JSON.stringify({
        scope: { kind: "global", id: "global" },
        apply_to: "both",
        rules: [
          { name: "mail", kind: "pii", action: "redact", types: ["email"] },
          { name: "inject", kind: "pattern", action: "block", patterns: ["ignore previous"] },
        ],
      }),
    );
    assertEquals((await ctl(["guard", "set", "base", "--file", `${dir}/p.json`, ...base])).code, 0);
    const list = await ctl(["guard", "list", ...base]);
    assert(/base\s+global\s+both\s+2/.test(list.out), list.out);
    const redacted = await ctl(["guard", "test", "base", "--text", "to a@b.example", ...base]);
    assertEquals(redacted.code, 0);
    assert(redacted.out.includes("passes as: to [EMAIL_1]"), redacted.out);
    assert(redacted.out.includes("redact mail"), redacted.out);
    const blocked = await ctl([
      "guard",
      "test",
      "base",
      "--text",
      "please ignore previous",
      ...base,
    ]);
    assertEquals(blocked.code, 1);
    assert(blocked.out.includes("blocked by rule inject"), blocked.out);
    assert(!blocked.out.includes("please"), "the matched text is not shown back");
  } finally {
    await t.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ctl model judge and ctl guard judge check: a quick judge is ok, a slow one slow (exit 1), no judge refused", async () => {
  const t = await startTestControlPlane();
  const judges = await Promise.all(
    [0, 1300].map((delayMs) =>
      startSimJudge({ format: "qwen3guard", unsafeWhen: [], delayMs }, "eng")
    ),
  );
  try {
    const base = ["--url", t.cp.url, "--token", t.adminToken];
    for (const [i, name] of ["guard", "slowguard"].entries()) {
      await t.cp.deps.catalog.upsert({ name, engine: "sim", source: "" });
      t.cp.deps.replicas.upsert({
        id: `n${i}/${name}`,
        model: name,
        baseUrl: judges[i]!.url,
        apiKey: "eng",
        state: "ready",
      });
      const set = await ctl(["model", "judge", name, "qwen3guard", ...base]);
      assertEquals(set.code, 0, set.out);
    }
    assertEquals(t.cp.deps.catalog.get("guard")?.judge, "qwen3guard");
    const quick = await ctl(["guard", "judge", "check", "guard", "--budget", "1000", ...base]);
    assertEquals(quick.code, 0, quick.out);
    assert(quick.out.includes("guard: ok against a 1000 ms budget"), quick.out);
    const slow = await ctl(["guard", "judge", "check", "slowguard", "--budget", "1000", ...base]);
    assertEquals(slow.code, 1, slow.out);
    assert(slow.out.includes("slowguard: slow against a 1000 ms budget"), slow.out);
    assert(slow.out.includes("fail: open"), slow.out);
    assertEquals((await ctl(["model", "judge", "guard", "off", ...base])).code, 0);
    assertEquals(t.cp.deps.catalog.get("guard")?.judge, null);
    const none = await ctl(["guard", "judge", "check", "guard", ...base]);
    assert(none.code !== 0, none.out);
  } finally {
    await t.close();
    for (const j of judges) await j.close();
  }
});
