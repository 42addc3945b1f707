/**
 * server.yaml's hf: models are pinned at start, as models added through the API are: a real
 * control plane in-process (real store, real listeners) against the fake hub. Checks: the pin
 * (commit, each file's sha256 and size) is stored; a restart keeps it even when the repository
 * moved on; a new model is pinned at the next start; a source changed to one the hub cannot
 * resolve drops the old pin, does not hold the start, says why (explain, a request's 503) and
 * is pinned once the hub has it.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { eventually } from "../helpers/llmgw_process.ts";
import { generatedBytes, sha256Hex, startFakeHub } from "../helpers/fake_hf.ts";
import { systemClock } from "../../core/clock.ts";
import { createLogger } from "../../core/log.ts";
import { loadServerConfig } from "../../server/wiring/config.ts";
import { type ControlPlane, startControlPlane } from "../../server/wiring/serve.ts";
import { initDataDir } from "../../server/wiring/init_data_dir.ts";

Deno.test({
  name: "models: server.yaml's hf: sources are pinned at start, kept on restart, retried when down",
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-models-pin-" });
  const hub = startFakeHub();
  await initDataDir(dir, { clock: systemClock });
  const logs: string[] = [];
  const writeYaml = (models: string) => Deno.writeTextFile(`${dir}/server.yaml`, models);
  const start = async () => {
    const config = await loadServerConfig({
      flags: {
        listen: "127.0.0.1:0",
        "cluster-listen": "127.0.0.1:0",
        portal: "false",
        "weights-hf-endpoint": hub.url,
        "on-demand-request-wait-ms": "500",
      },
      env: { LLMGW_DATA: dir },
    });
    return await startControlPlane(config, {
      logger: createLogger({ level: "info", sink: (l) => logs.push(l) }),
    });
  };
  const model = (name: string, source: string) => `
  - name: ${name}
    source: ${source}
    on_demand: true
    profiles: [{ engine: sim }]
`;
  const revisions = (repo: string) =>
    hub.requests.filter((r) => r.path.startsWith(`/api/models/${repo}/revision/`)).length;
  const originOf = (cp: ControlPlane, name: string) => cp.deps.catalog.get(name)?.origin;
  const tiny1 = generatedBytes(50_000, 1);
  const commit1 = hub.putRepo("acme/tiny", { "tiny.gguf": tiny1 });
  let cp: ControlPlane | undefined;
  try {
    await t.step("pinned at start: the commit, the file's sha256 and size", async () => {
      await writeYaml(`models:${model("tiny", "hf:acme/tiny/tiny.gguf")}`);
      cp = await start();
      const origin = await eventually(
        "tiny pinned",
        () => Promise.resolve(originOf(cp!, "tiny") ?? undefined),
      );
      assertEquals(origin, {
        kind: "hf",
        repo: "acme/tiny",
        commit: commit1,
        files: [{ path: "tiny.gguf", size: tiny1.length, sha256: sha256Hex(tiny1) }],
        entry: "tiny.gguf",
      });
      await cp.close();
      cp = undefined;
    });

    await t.step("a restart keeps the pin though the repository moved on", async () => {
      const seen = revisions("acme/tiny");
      const commit2 = hub.putRepo("acme/tiny", { "tiny.gguf": generatedBytes(60_000, 2) });
      assert(commit2 !== commit1);
      cp = await start();
      const origin = originOf(cp, "tiny") as { commit: string } | null | undefined;
      assertEquals(origin?.commit, commit1, "the stored pin, not the newer commit");
      await new Promise((r) => setTimeout(r, 300));
      assertEquals(revisions("acme/tiny"), seen, "not resolved again");
      await cp.close();
      cp = undefined;
    });

    await t.step(
      "a source the hub lacks: the start goes on, the model says why, and is pinned when it appears",
      async () => {
        const other = generatedBytes(40_000, 3);
        const otherCommit = hub.putRepo("acme/other", { "o.gguf": other });
        await writeYaml(
          `models:${model("fresh", "hf:acme/other/o.gguf")}${
            model("tiny", "hf:acme/later/l.gguf")
          }`,
        );
        const began = Date.now();
        cp = await start();
        assert(Date.now() - began < 10_000, "the start is not held by the hub");
        const c = cp;
        const origin = await eventually("a new model pinned at start", () => {
          const o = originOf(c, "fresh") as { repo: string; commit: string } | null | undefined;
          return Promise.resolve(o ?? undefined);
        });
        assertEquals([origin.repo, origin.commit], ["acme/other", otherCommit]);

        const token = (await Deno.readTextFile(`${dir}/admin.token`)).trim();
        // tiny's source changed to one the hub lacks: its old pin is no longer what it names.
        const note = await eventually("tiny's note says why", async () => {
          const res = await fetch(`${c.url}/api/v1/models/tiny/explain`, {
            headers: { authorization: `Bearer ${token}` },
          });
          const notes = (await res.json()).notes as { message: string }[] | undefined;
          return notes?.find((n) => /could not be pinned/.test(n.message))?.message;
        });
        assertMatch(note, /hf:acme\/later\/l\.gguf could not be pinned: .+; trying again in \d+s/);
        assertEquals(originOf(c, "tiny"), null, "the old source's pin is dropped");
        const { key } = await c.deps.keys.create({ name: "pin-test" });
        const res = await fetch(`${c.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "tiny", messages: [{ role: "user", content: "hi" }] }),
        });
        assertEquals(res.status, 503);
        assertMatch((await res.json()).error.message, /could not be pinned/);
        assert(logs.some((l) => /could not be pinned/.test(l)), "the log says so too");

        const later = generatedBytes(30_000, 4);
        const laterCommit = hub.putRepo("acme/later", { "l.gguf": later });
        const pinned = await eventually("tiny pinned once the hub has it", () => {
          const o = originOf(c, "tiny") as { commit: string } | null | undefined;
          return Promise.resolve(o ?? undefined);
        }, 30_000);
        assertEquals(pinned.commit, laterCommit);
        await eventually("the note gone", () =>
          Promise.resolve(
            c.deps.modelServices!.reconciler.notes("tiny").some((n) => /pinned/.test(n.message))
              ? undefined
              : true,
          ));
      },
    );
  } finally {
    await cp?.close();
    await hub.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
