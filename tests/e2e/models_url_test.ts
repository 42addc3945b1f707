/**
 * A model whose source is a plain URL: its entry carries the file's `sha256` (and `ctl model
 * plan/serve` take `--sha256`), the control plane pins it, and the node fetches the bytes and
 * checks them against it before the engine starts. A wrong sum fails the replica, naming it.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { eventually, quickAgentFlags } from "../helpers/llmgw_process.ts";
import { quickClusterFlags, startClusterControlPlane } from "../helpers/control_plane.ts";
import { generatedBytes, sha256Hex } from "../helpers/fake_hf.ts";

Deno.test({
  name: "models: a URL source with its sha256 is planned, added, fetched, checked and served",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-url-" });
  const bytes = generatedBytes(64_000, 7);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response(bytes.slice().buffer as ArrayBuffer, {
        headers: { "content-length": String(bytes.length) },
      }),
  );
  const url = `http://127.0.0.1:${server.addr.port}/files/tiny.gguf`;
  const sum = sha256Hex(bytes);
  const c = await startClusterControlPlane(root, { flags: { ...quickClusterFlags } });
  try {
    await c.joinAgent("cpu", { args: [...quickAgentFlags] });
    const unsummed = await c.admin("POST", "models/plan", { source: url });
    assertMatch(JSON.stringify(unsummed.body), /needs its sha256/);
    const plan = await c.ctl("model", "plan", url, "--sha256", sum, "--engine", "sim", "--json");
    assertEquals(plan.code, 0, plan.text);
    assertEquals(JSON.parse(plan.text).entry.sha256, sum, "the entry carries the sum");

    await c.addModel(`
name: tiny
source: ${url}
sha256: "${sum.toUpperCase()}"
profiles: [{ engine: sim, memory_gb: 0.2 }]
`);
    const origin = c.cp.deps.catalog.get("tiny")!.origin as { kind: string; files: unknown[] };
    assertEquals(origin, {
      kind: "url",
      url,
      files: [{ path: "tiny.gguf", size: null, sha256: sum }],
      entry: "tiny.gguf",
    });
    await c.readyReplica("tiny", 30_000);
    // Room for the next one on this small node.
    assertEquals((await c.ctl("model", "remove", "tiny")).code, 0);

    await c.addModel(`
name: wrong
source: ${url}
sha256: "${"0".repeat(64)}"
profiles: [{ engine: sim, memory_gb: 0.2 }]
`);
    const failed = await eventually("the wrong sum failing its replica", async () => {
      const rows = await c.replicas("wrong");
      const r = rows.find((x) => x.state === "failed");
      return r as { reason?: string } | undefined;
    }, 30_000);
    assert(/sha256/i.test(failed.reason ?? ""), failed.reason);
    const yamlWithHf = await c.admin("POST", "models", {
      yaml: `name: bad\nsource: hf:acme/x\nsha256: ${sum}\nprofiles: [{ engine: sim }]\n`,
    });
    assertEquals(yamlWithHf.status, 400);
    assertMatch(JSON.stringify(yamlWithHf.body), /a sha256 is for a URL source/);
  } finally {
    await c.close();
    await server.shutdown();
  }
});
