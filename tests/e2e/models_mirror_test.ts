/**
 * Adding a model with an hf: source pins it and starts mirroring exactly that pin onto the
 * control plane, as docs/weights.md promises, so an offline node finds it there; the progress is the
 * mirror's (`ctl mirror list`). server.yaml's hf: models are mirrored once pinned, too.
 */
import { assertEquals } from "../assert.ts";
import { eventually } from "../helpers/llmgw_process.ts";
import { quickClusterFlags, startClusterControlPlane } from "../helpers/control_plane.ts";
import { generatedBytes, sha256Hex, startFakeHub } from "../helpers/fake_hf.ts";

Deno.test({
  name: "models: an hf: model added through the API is pinned and mirrored, that very commit",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-model-mirror-" });
  const hub = startFakeHub();
  const bytes = generatedBytes(300_000, 4);
  const commit = hub.putRepo("acme/tiny", { "tiny.gguf": bytes });
  const c = await startClusterControlPlane(root, {
    flags: { ...quickClusterFlags, "weights-hf-endpoint": hub.url },
  });
  try {
    await c.addModel(`
name: tiny
source: hf:acme/tiny/tiny.gguf
on_demand: true
profiles: [{ engine: sim }]
`);
    const version = await eventually("the mirror version complete", async () => {
      const list = (await c.admin("GET", "mirror")).body.data as {
        source: string;
        status: string;
        versionDir: string;
        bytesTotal: number | null;
      }[];
      return list.find((v) => v.status === "complete");
    }, 30_000);
    assertEquals(version.source, "hf:acme/tiny/tiny.gguf");
    assertEquals(version.bytesTotal, bytes.length);
    const origin = c.cp.deps.catalog.get("tiny")!.origin as { commit: string };
    assertEquals(origin.commit, commit);
    const copy = await Deno.readFile(`${root}/cp/mirror/acme/tiny/${commit}/tiny.gguf`);
    assertEquals(sha256Hex(copy), sha256Hex(bytes));
  } finally {
    await c.close();
    await hub.close();
  }
});
