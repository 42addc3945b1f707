import { assert, assertEquals, assertMatch, assertRejects } from "../../tests/assert.ts";
import { sha256Hex } from "../../tests/helpers/fake_hf.ts";
import { AppError } from "../errors.ts";
import { checksumPath, sizeIfThere } from "./checksum_file.ts";
import type { FetchProgress } from "./progress.ts";
import { percentOf } from "./progress.ts";
import { removeWeights } from "./remove_weights.ts";
import { hubFixture, shard1, shard2, tinyFiles } from "../../tests/helpers/hub_fixture.ts";
import type { PinnedSource } from "./pinned_source.ts";

Deno.test("a set fetches once, checks every file, writes its marker, and is cached after", async () => {
  const fx = await hubFixture();
  try {
    const pinned = await fx.pin("hf:acme/tiny");
    const events: FetchProgress[] = [];
    const r = await fx.fetcher().ensure(pinned, { onProgress: (p) => events.push(p) });
    assertEquals(r.outcome, "downloaded");
    assertEquals(r.path, `${fx.dir}/node/acme/tiny/${fx.commit}`);
    const files = tinyFiles();
    for (const f of [shard1, shard2, "config.json", "tokenizer.json"]) {
      assertEquals(sha256Hex(await Deno.readFile(`${r.path}/${f}`)), sha256Hex(files[f]!));
      assertEquals(
        (await Deno.readTextFile(checksumPath(`${r.path}/${f}`))).trim(),
        sha256Hex(files[f]!),
      );
    }
    assertEquals(await sizeIfThere(`${r.path}/pytorch_model.bin`), null);
    const markers = [...Deno.readDirSync(r.path)].filter((e) => e.name.startsWith(".complete."));
    assertEquals(markers.length, 1);

    // The set's progress is the set's: one total, never going back, then a checking phase.
    const total = pinned.kind === "hf" ? pinned.files.reduce((a, f) => a + f.size!, 0) : 0;
    const fetching = events.filter((e) => e.phase === "fetching");
    const checking = events.filter((e) => e.phase === "checking");
    assert(fetching.length > 5);
    for (const e of fetching) assertEquals(e.bytesTotal, total);
    for (let i = 1; i < fetching.length; i++) {
      assert(fetching[i]!.bytesDone >= fetching[i - 1]!.bytesDone, "progress went back");
    }
    assertEquals(fetching.at(-1)!.bytesDone, total);
    assertEquals(checking[0]!.bytesDone, 0);
    assertEquals(checking.at(-1), {
      source: checking[0]!.source,
      phase: "checking",
      bytesDone: total,
      bytesTotal: total,
    });
    assertEquals(events.indexOf(checking[0]!) > events.indexOf(fetching.at(-1)!), true);

    const seen = fx.hub.requests.length;
    const again = await fx.fetcher().ensure(pinned);
    assertEquals(again, { path: r.path, outcome: "cached" });
    assertEquals(fx.hub.requests.length, seen);
  } finally {
    await fx.close();
  }
});

for (const hashOn of ["inline", "worker"] as const) {
  Deno.test(`a transfer cut half way resumes with Range and completes (hash ${hashOn})`, async () => {
    const fx = await hubFixture();
    try {
      const pinned = await fx.pin(`hf:acme/tiny/${shard1}`);
      fx.hub.dropOnce(shard1, 700_000);
      const r = await fx.fetcher({ hashOnWorkerFrom: hashOn === "worker" ? 0 : Infinity })
        .ensure(pinned);
      assertEquals(sha256Hex(await Deno.readFile(r.path)), sha256Hex(tinyFiles()[shard1]!));
      const cdn = fx.hub.fileRequests(shard1).filter((q) => q.path.startsWith("/cdn/"));
      assertEquals(cdn.length, 2);
      assertEquals(cdn[0]!.range, null);
      assertMatch(cdn[1]!.range ?? "", /^bytes=\d+-$/);
      const from = Number(/\d+/.exec(cdn[1]!.range!)![0]);
      assert(from > 0 && from <= 700_000, `resumed from ${from}`);
    } finally {
      await fx.close();
    }
  });
}

Deno.test("a file changed on the server after pinning is refused, named with both sums, and deleted", async () => {
  const fx = await hubFixture();
  try {
    const pinned = await fx.pin(`hf:acme/tiny/${shard2}`);
    const tampered = tinyFiles()[shard2]!.slice();
    tampered[10] = tampered[10]! ^ 0xff;
    fx.hub.setFile("acme/tiny", shard2, tampered);
    const f = fx.fetcher();
    const err = await assertRejects(() => f.ensure(pinned), AppError);
    assertEquals(err.code, "weights_checksum_mismatch");
    assert(err.message.includes(sha256Hex(tampered)), err.message);
    assert(err.message.includes(sha256Hex(tinyFiles()[shard2]!)), err.message);
    const target = `${f.dirOf(pinned as Exclude<PinnedSource, { kind: "local" }>)}/${shard2}`;
    assertEquals(await sizeIfThere(target), null);
    assertEquals(await sizeIfThere(`${target}.part`), null);
  } finally {
    await fx.close();
  }
});

Deno.test("a pickle is refused before any request for it", async () => {
  const fx = await hubFixture();
  try {
    const before = fx.hub.requests.length;
    const err = await assertRejects(() => fx.pin("hf:acme/tiny/pytorch_model.bin"), AppError);
    assertEquals(err.code, "weights_pickle_refused");
    assertEquals(fx.hub.requests.length, before);
    // A node given a pinned pickle refuses it too, without a request.
    const pinned: PinnedSource = {
      kind: "hf",
      repo: "acme/tiny",
      commit: fx.commit,
      files: [{
        path: "pytorch_model.bin",
        size: 4096,
        sha256: sha256Hex(tinyFiles()["pytorch_model.bin"]!),
      }],
      entry: "pytorch_model.bin",
    };
    const e2 = await assertRejects(() => fx.fetcher().ensure(pinned), AppError);
    assertEquals(e2.code, "weights_pickle_refused");
    assertEquals(fx.hub.fileRequests("pytorch_model.bin").length, 0);
    // A set with one pickle among safetensors is refused whole.
    const set: PinnedSource = {
      ...pinned,
      files: [...pinned.files, { path: shard1, size: 1, sha256: "a".repeat(64) }],
    };
    delete (set as { entry?: string }).entry;
    await assertRejects(() => fx.fetcher().ensure(set), AppError, "pickle");
    assertEquals(fx.hub.fileRequests(shard1).length, 0);
    // Allowed on purpose, it is fetched and checked like any file.
    const allowed = await fx.pin("hf:acme/tiny/pytorch_model.bin", { allowPickle: true });
    const r = await fx.fetcher().ensure(allowed);
    assertEquals(await sizeIfThere(r.path), 4096);
  } finally {
    await fx.close();
  }
});

Deno.test("four callers wanting one set cause one download and all get the result", async () => {
  const fx = await hubFixture();
  try {
    const pinned = await fx.pin("hf:acme/tiny");
    const f = fx.fetcher();
    const got: number[] = [0, 0, 0, 0];
    const results = await Promise.all(
      got.map((_, i) => f.ensure(pinned, { onProgress: () => got[i]!++ })),
    );
    for (const r of results) assertEquals(r.path, results[0]!.path);
    for (const n of got) assert(n > 0, "every waiter sees progress");
    for (const file of [shard1, shard2]) {
      assertEquals(fx.hub.fileRequests(file).filter((q) => q.path.includes("/resolve/")).length, 1);
    }
  } finally {
    await fx.close();
  }
});

Deno.test("a shard asked for alone while its set is fetched is written once", async () => {
  const fx = await hubFixture();
  try {
    const set = await fx.pin("hf:acme/tiny");
    const single = await fx.pin(`hf:acme/tiny/${shard1}`);
    const f = fx.fetcher();
    const [a, b] = await Promise.all([f.ensure(set), f.ensure(single)]);
    assertEquals(b.path, `${a.path}/${shard1}`);
    assertEquals(sha256Hex(await Deno.readFile(b.path)), sha256Hex(tinyFiles()[shard1]!));
    assertEquals(fx.hub.fileRequests(shard1).filter((q) => q.path.includes("/resolve/")).length, 1);
  } finally {
    await fx.close();
  }
});

Deno.test("a fetcher stopped mid-set carries on from the .part after a restart", async () => {
  const fx = await hubFixture();
  try {
    const pinned = await fx.pin("hf:acme/tiny");
    const first = fx.fetcher();
    const cutAt = 1_500_000 + 300_000; // inside the second shard
    let stopping: Promise<void> | null = null;
    const err = await assertRejects(() =>
      first.ensure(pinned, {
        onProgress: (p) => {
          if (p.bytesDone >= cutAt && !stopping) stopping = first.close();
        },
      })
    );
    assert(!(err instanceof AppError), err.message);
    await stopping;
    const dir = `${fx.dir}/node/acme/tiny/${fx.commit}`;
    assertEquals(await sizeIfThere(`${dir}/${shard1}`), 1_500_000);
    const part = await sizeIfThere(`${dir}/${shard2}.part`);
    assert(part !== null && part > 0 && part < 1_000_000, `part is ${part}`);

    const second = fx.fetcher();
    const r = await second.ensure(pinned);
    assertEquals(r.outcome, "downloaded");
    assertEquals(
      sha256Hex(await Deno.readFile(`${dir}/${shard2}`)),
      sha256Hex(tinyFiles()[shard2]!),
    );
    const resolves = (file: string) =>
      fx.hub.fileRequests(file).filter((q) => q.path.includes("/resolve/"));
    assertEquals(resolves(shard1).length, 1, "the finished shard is not fetched again");
    assertEquals(resolves(shard2).at(-1)!.range, `bytes=${part}-`);
  } finally {
    await fx.close();
  }
});

Deno.test("a download of unknown size reports bytes and no percent", async () => {
  const fx = await hubFixture();
  try {
    const bytes = tinyFiles()[shard2]!;
    const pinned: PinnedSource = {
      kind: "url",
      url: `${fx.hub.url}/cdn/acme/tiny/${fx.commit}/${shard2}?token=hunter2`,
      files: [{ path: shard2, size: null, sha256: sha256Hex(bytes) }],
      entry: shard2,
    };
    const events: FetchProgress[] = [];
    const r = await fx.fetcher().ensure(pinned, { onProgress: (p) => events.push(p) });
    assertEquals(r.path, `${fx.dir}/node/url/${sha256Hex(bytes)}/${shard2}`);
    const fetching = events.filter((e) => e.phase === "fetching");
    assert(fetching.length > 1);
    for (const e of fetching) {
      assertEquals(e.bytesTotal, null);
      assertEquals(percentOf(e), null);
    }
    assertEquals(fetching.at(-1)!.bytesDone, bytes.length);
    for (const e of events) assert(!e.source.includes("hunter2"), "the query is not shown");
  } finally {
    await fx.close();
  }
});

Deno.test("a fetch that would not fit is refused up front, saying how much is needed", async () => {
  const fx = await hubFixture();
  try {
    const pinned = await fx.pin("hf:acme/tiny");
    const before = fx.hub.requests.length;
    const err = await assertRejects(
      () => fx.fetcher({ freeBytes: () => Promise.resolve(1_000_000) }).ensure(pinned),
      AppError,
    );
    assertEquals(err.code, "weights_no_space");
    assertMatch(err.message, /needs 2\.4 MiB more .* only 976\.6 KiB is free/);
    assertEquals(fx.hub.requests.length, before);
  } finally {
    await fx.close();
  }
});

Deno.test("a path on the node is used in place, and a missing one says so", async () => {
  const fx = await hubFixture();
  try {
    const path = `${fx.dir}/here.gguf`;
    await Deno.writeFile(path, new Uint8Array(8));
    assertEquals(await fx.fetcher().ensure({ kind: "local", path }), { path, outcome: "local" });
    const err = await assertRejects(
      () => fx.fetcher().ensure({ kind: "local", path: `${fx.dir}/missing.gguf` }),
      AppError,
    );
    assertEquals(err.code, "weights_not_local");
  } finally {
    await fx.close();
  }
});

Deno.test("purge removes a model's files but keeps those another model uses", async () => {
  const fx = await hubFixture();
  try {
    const set = await fx.pin("hf:acme/tiny");
    const single = await fx.pin(`hf:acme/tiny/${shard1}`);
    const f = fx.fetcher();
    const r = await f.ensure(set);
    await f.ensure(single);
    const out = await removeWeights(`${fx.dir}/node`, set, [single]);
    assertEquals(out.kept, [`${r.path}/${shard1}`]);
    assertEquals(out.removed.length, 3);
    assertEquals(await sizeIfThere(`${r.path}/${shard2}`), null);
    assertEquals(await sizeIfThere(checksumPath(`${r.path}/${shard2}`)), null);
    assertEquals(await sizeIfThere(`${r.path}/${shard1}`), 1_500_000);
    await removeWeights(`${fx.dir}/node`, single, []);
    assertEquals(await sizeIfThere(`${fx.dir}/node/acme`), null, "empty folders go too");
  } finally {
    await fx.close();
  }
});

Deno.test("a failed fetch keeps a signed URL's query and credentials out of its message", async () => {
  const fx = await hubFixture();
  try {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close(); // nothing listens there now
    const pinned: PinnedSource = {
      kind: "url",
      url: `http://user:pw@127.0.0.1:${port}/m.gguf?token=hunter2`,
      files: [{ path: "m.gguf", size: 10, sha256: "b".repeat(64) }],
      entry: "m.gguf",
    };
    const logs: string[] = [];
    const { createLogger } = await import("../log.ts");
    const err = await assertRejects(
      () =>
        fx.fetcher({ tries: 2, logger: createLogger({ sink: (l) => logs.push(l) }) }).ensure(
          pinned,
        ),
      AppError,
    );
    assertEquals(err.code, "weights_fetch_failed");
    for (const text of [err.message, ...logs]) {
      assert(!text.includes("hunter2") && !text.includes("pw@"), text);
    }
    assert(logs.length >= 2, "each try is logged");
  } finally {
    await fx.close();
  }
});
