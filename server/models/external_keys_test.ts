/**
 * Several keys for one outside provider, configured as an operator would: `external.api_key_files`
 * in server.yaml's models and in a file given to `ctl model add`. Each key is its own endpoint
 * `external:MODEL#n` with its weight and its own breaker.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { fakeServer } from "../../tests/helpers/routing.ts";
import { ctlCommand } from "../cli/ctl/mod.ts";

/** A provider that answers `sk-good` and limits every other key. */
function provider() {
  const seen: string[] = [];
  const server = fakeServer((req) => {
    const key = (req.headers.get("authorization") ?? "").replace(/^Bearer /, "");
    seen.push(key);
    if (key !== "sk-good") {
      return Response.json({ error: { message: "rate limited" } }, { status: 429 });
    }
    return Response.json({
      id: "x",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 1 },
    });
  });
  return { ...server, seen };
}

const modelYaml = (name: string, url: string, dir: string) => `
  - name: ${name}
    external:
      url: ${url}/v1
      model: upstream-${name}
      api_key_files:
        - { file: ${dir}/limited.key, weight: 1 }
        - { file: ${dir}/good.key, weight: 3 }
`;

Deno.test("external.api_key_files from server.yaml and ctl model add: one endpoint per key, each with its breaker", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-ext-" });
  const p = provider();
  await Deno.writeTextFile(`${dir}/limited.key`, "sk-limited\n");
  await Deno.writeTextFile(`${dir}/good.key`, "sk-good\n");
  await Deno.writeTextFile(`${dir}/server.yaml`, `models:${modelYaml("gpt", p.url, dir)}`);
  const t = await startTestControlPlane({ dir, flags: { "router-breaker-failures": "1" } });
  try {
    const endpoints = (model: string) =>
      t.cp.deps.replicas.forModel(model).map((r) => [r.id, r.weight]).sort();
    assertEquals(endpoints("gpt"), [["external:gpt#1", 1], ["external:gpt#2", 3]]);
    for (let i = 0; i < 8; i++) {
      const res = await t.chat({ model: "gpt", messages: [{ role: "user", content: "hi" }] });
      assertEquals(res.status, 200, await res.clone().text());
      await res.body?.cancel();
    }
    // The limited key was tried, then its own breaker rested it; the other answered every request.
    assertEquals(t.cp.deps.replicas.get("external:gpt#1")?.breaker.state(), "open");
    assertEquals(t.cp.deps.replicas.get("external:gpt#2")?.breaker.state(), "closed");
    assertEquals(p.seen.filter((k) => k === "sk-good").length, 8);
    assert(p.seen.filter((k) => k === "sk-limited").length >= 1);

    // The same from a file given to `ctl model add`.
    await Deno.writeTextFile(`${dir}/more.yaml`, `models:${modelYaml("gpt2", p.url, dir)}`);
    const code = await ctlCommand.run([
      "model",
      "add",
      "-f",
      `${dir}/more.yaml`,
      "--url",
      t.cp.url,
      "--token",
      t.adminToken,
    ]);
    assertEquals(code, 0);
    for (let i = 0; i < 50 && endpoints("gpt2").length < 2; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assertEquals(endpoints("gpt2"), [["external:gpt2#1", 1], ["external:gpt2#2", 3]]);
    const res = await t.chat({ model: "gpt2", messages: [{ role: "user", content: "hi" }] });
    assertEquals(res.status, 200);
    await res.body?.cancel();
    const listed = await (await t.admin("models")).text();
    assert(!listed.includes("sk-good") && !listed.includes("sk-limited"), "no key is listed");
  } finally {
    await t.close();
    await p.close();
  }
});
