/**
 * The engines' flag gate at the catalog, through the admin API: a model whose arguments carry a
 * refused flag (a key among them) is refused when added or replaced, with the flag named, and
 * neither the catalog nor the audit log ever holds the value; a row stored before the gate is held
 * rather than started and refused by the agent for ever.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { rowFromDef } from "./catalog_row.ts";
import { parseModel } from "./model_yaml.ts";

const secret = "sk-very-secret-value-123";
const model = (args: string[], engine = "llamacpp") => ({
  name: "gated",
  source: "/models/gated.gguf",
  profiles: [{ engine, args }],
});

Deno.test("flag gate at the catalog: refused flags are named, and their values stored nowhere", async () => {
  const t = await startTestControlPlane();
  try {
    const post = (body: unknown) =>
      t.admin("models", { method: "POST", body: JSON.stringify(body) });

    const refused = await post(model(["--api-key", secret]));
    const text = await refused.text();
    assertEquals(refused.status, 400, text);
    assert(text.includes("--api-key"), `the flag is named: ${text}`);
    assert(!text.includes(secret), "the answer does not repeat the value");
    assertEquals(t.cp.deps.catalog.get("gated"), undefined, "nothing was added");

    // Each engine's own rules: vLLM's abbreviations, a flag=value spelling, the sim's --model.
    for (
      const [args, engine, flag] of [
        [["--trust-remote"], "vllm", "--trust-remote"],
        [[`--hf-token=${secret}`], "llamacpp", "--hf-token"],
        [["--model", "/etc/passwd"], "sim", "--model"],
      ] as const
    ) {
      const r = await post(model([...args], engine));
      const body = await r.text();
      assertEquals(r.status, 400, body);
      assert(body.includes(flag), `${engine} names ${flag}: ${body}`);
      assert(!body.includes(secret), body);
    }

    // A change to an existing model goes through the same gate.
    const ok = await post(model(["--flash-attn", "on"]));
    assertEquals(ok.status, 201, await ok.text());
    const replaced = await t.admin("models?replace=true", {
      method: "POST",
      body: JSON.stringify(model(["--flash-attn", "on", "--api-key", secret])),
    });
    const replacedText = await replaced.text();
    assert(replaced.status === 400 || replaced.status === 409, replacedText);
    assert(!JSON.stringify(t.cp.deps.catalog.list()).includes(secret), "the catalog has no secret");

    const audit = await (await t.admin("audit?limit=5000")).text();
    assert(audit.includes("model.add"), "the good add was audited");
    assert(!audit.includes(secret), "the audit log has no secret");
    assert(!t.lines.join("\n").includes(secret), "neither have the logs");
  } finally {
    await t.close();
  }
});

Deno.test("flag gate at the catalog: a row stored before the gate is held, not started and retried", async () => {
  const t = await startTestControlPlane({ flags: { "on-demand-request-wait-ms": "300" } });
  try {
    const def = parseModel(model(["--flash-attn", "on"]));
    // As an older release stored it: the arguments never went through the gate.
    def.profiles[0]!.args = ["--api-key", secret];
    await t.cp.deps.catalog.upsert(rowFromDef(def, {}, "api"));
    const res = await t.chat({ model: "gated", messages: [{ role: "user", content: "hi" }] });
    const text = await res.text();
    assertEquals(res.status, 503, text);
    assert(text.includes("--api-key"), `the refusal is the reason it waits: ${text}`);
    assert(!text.includes(secret), text);
  } finally {
    await t.close();
  }
});
