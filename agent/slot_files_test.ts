/**
 * Saved conversation caches are bounded by age and size, oldest first, and go with their engine:
 * a real sim engine under the supervisor, a file in its directory, then a stop.
 */
import { assert, assertEquals } from "../tests/assert.ts";
import { silentLogger } from "../core/log.ts";
import { builtinAdapters } from "./engines/builtin_adapters.ts";
import { Supervisor } from "./supervisor.ts";
import { pruneSlotFiles } from "./slot_files.ts";

const MiB = 1024 ** 2;

async function write(dir: string, name: string, bytes: number, ageMs: number, now: number) {
  await Deno.writeFile(`${dir}/${name}`, new Uint8Array(bytes));
  const t = new Date(now - ageMs);
  await Deno.utime(`${dir}/${name}`, t, t);
}

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

Deno.test("slot files past their age go, then the oldest beyond the size bound; other files stay", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-slots-" });
  try {
    const now = Date.now();
    await write(dir, "llmgw-a1.bin", 3 * MiB, 10_000, now);
    await write(dir, "llmgw-b2.bin", 3 * MiB, 20_000, now);
    await write(dir, "llmgw-c3.bin", 3 * MiB, 30_000, now);
    await write(dir, "llmgw-d4.bin", 1 * MiB, 2 * 3_600_000, now);
    await write(dir, "model.log", 1 * MiB, 2 * 3_600_000, now);
    const removed = await pruneSlotFiles(dir, { maxBytes: 7 * MiB, maxAgeMs: 3_600_000 }, now);
    assertEquals(removed, { files: 2, bytes: 4 * MiB });
    assertEquals(await names(dir), ["llmgw-a1.bin", "llmgw-b2.bin", "model.log"]);
    assertEquals(await pruneSlotFiles(`${dir}/absent`, { maxBytes: 0, maxAgeMs: 0 }, now), {
      files: 0,
      bytes: 0,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a replica's saved conversations are deleted when it stops", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-slots-sup-" });
  const sup = new Supervisor({ logger: silentLogger, adapters: builtinAdapters, workDir: dir });
  try {
    await sup.ensure({
      replicaId: "s1",
      model: "m",
      engine: "sim",
      apiKey: "k",
      readyTimeoutMs: 60_000,
    });
    const replicaDir = `${dir}/replicas/s1`;
    await Deno.writeFile(`${replicaDir}/llmgw-5e55.bin`, new Uint8Array(1024));
    await Deno.writeTextFile(`${replicaDir}/notes.txt`, "kept");
    await sup.stop("s1");
    const left = await names(replicaDir);
    assert(!left.includes("llmgw-5e55.bin"), left.join(" "));
    assert(left.includes("notes.txt"));
  } finally {
    await sup.stopAll();
    await Deno.remove(dir, { recursive: true });
  }
});

const llamaServer = Deno.env.get("LLAMA_SERVER");
const gguf = `${
  (Deno.env.get("LLMGW_FIXTURES") ??
    new URL("../../shared/fixtures/", import.meta.url).pathname).replace(/\/?$/, "/")
}tiny-random-llama.gguf`;
const llamaSkip = llamaServer ? "" : "set LLAMA_SERVER to a llama-server binary to run it";

Deno.test({
  name: `a real llama-server's saved slot goes with it when the supervisor stops it${
    llamaSkip ? ` (skipped: ${llamaSkip})` : ""
  }`,
  ignore: !!llamaSkip,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-slots-llama-" });
  const sup = new Supervisor({ logger: silentLogger, adapters: builtinAdapters, workDir: dir });
  const key = "slot-files-key";
  try {
    const h = await sup.ensure({
      replicaId: "l1",
      model: "tiny",
      engine: "llamacpp",
      modelPath: gguf,
      binary: llamaServer!,
      apiKey: key,
      profile: { contextLength: 1024, parallel: 1, gpuLayers: 0 },
      readyTimeoutMs: 120_000,
    });
    const post = (path: string, body: unknown) =>
      fetch(h.baseUrl + path, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const answer = await post("/completion", { prompt: "Hello there", n_predict: 4, id_slot: 0 });
    await answer.body?.cancel();
    // What the router's slot keeper asks for when another session takes the slot.
    const saved = await post("/slots/0?action=save", { filename: "llmgw-5e55.bin" });
    assertEquals(saved.status, 200, await saved.text());
    const replicaDir = `${dir}/replicas/l1`;
    assert((await names(replicaDir)).includes("llmgw-5e55.bin"), "the engine saved into its cwd");
    await sup.stop("l1");
    assert(!(await names(replicaDir)).includes("llmgw-5e55.bin"));
  } finally {
    await sup.stopAll();
    await Deno.remove(dir, { recursive: true });
  }
});
