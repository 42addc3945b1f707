/**
 * The engines' flag gate at the catalog, through the admin API: a model whose arguments carry a
 * refused flag (a key among them) is refused when added or replaced, with the flag named, and
 * neither the catalog nor the audit log ever holds the value.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";

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
