import { assert, assertEquals, assertRejects, assertThrows } from "../../tests/assert.ts";
import { generatedBytes, sha256Hex, startFakeHub } from "../../tests/helpers/fake_hf.ts";
import { AppError } from "../../core/errors.ts";
import { hubFixture, shard1, shard2, tinyFiles } from "../../tests/helpers/hub_fixture.ts";
import { HfClient } from "./hf_client.ts";
import { parseSource } from "./parse_source.ts";
import { pinSource } from "./pin_source.ts";
import { openStore } from "../../db/store.ts";
import { FakeClock } from "../../core/clock.ts";
import { ModelCatalog } from "../router/catalog.ts";

Deno.test("sources parse strictly: no query, fragment or .. can hide a file name", () => {
  assertEquals(parseSource("hf:acme/tiny"), {
    kind: "hf",
    repo: "acme/tiny",
    revision: "main",
    path: null,
  });
  assertEquals(parseSource("hf:acme/tiny/q4/m.gguf").kind, "hf");
  for (
    const bad of [
      "hf:acme/tiny/model.bin?x=.safetensors",
      "hf:acme/tiny#a.gguf",
      "hf:acme/../x",
      "hf:acme/tiny/../../etc/passwd",
      "hf:acme",
      "hf:acme/tiny/.hidden",
      "relative/path",
      "",
    ]
  ) {
    const e = assertThrows(() => parseSource(bad), AppError);
    assertEquals(e.code, "weights_source_invalid", bad);
  }
  const sha = "A".repeat(64);
  const url = parseSource("https://cdn.example/files/model.gguf?sig=secret#frag", { sha256: sha });
  assertEquals(url, {
    kind: "url",
    url: "https://cdn.example/files/model.gguf?sig=secret#frag",
    fileName: "model.gguf",
    sha256: "a".repeat(64),
  });
  const noSum = assertThrows(
    () => parseSource("https://cdn.example/model.gguf?sig=secret"),
    AppError,
  );
  assert(noSum.message.includes("--sha256") && !noSum.message.includes("secret"), noSum.message);
  assertThrows(() => parseSource("https://u:p@cdn.example/model.gguf", { sha256: sha }), AppError);
  // A hub resolve URL is read as the hf: source it names, so it gets pinned.
  assertEquals(
    parseSource("https://hub.test/acme/tiny/resolve/main/model.gguf", {
      hubEndpoint: "https://hub.test",
    }),
    { kind: "hf", repo: "acme/tiny", revision: "main", path: "model.gguf" },
  );
  assertEquals(parseSource("/srv/models/m.gguf"), { kind: "local", path: "/srv/models/m.gguf" });
});

Deno.test("a model is pinned when added: the commit, and every file's published sha256 and size", async () => {
  const fx = await hubFixture();
  try {
    const pinned = await fx.pin("hf:acme/tiny");
    assert(pinned.kind === "hf");
    assertEquals(pinned.commit, fx.commit);
    assertEquals(pinned.entry, undefined);
    const files = tinyFiles();
    assertEquals(
      pinned.files.map((f) => f.path).sort(),
      ["config.json", shard1, shard2, "tokenizer.json"].sort(),
    );
    for (const f of pinned.files) {
      assertEquals(f.sha256, sha256Hex(files[f.path]!));
      assertEquals(f.size, files[f.path]!.length);
    }
    // The shards' sums come from the tree (LFS): only the small files were fetched to hash them.
    assertEquals(fx.hub.fileRequests(shard1).length, 0);
    assertEquals(
      fx.hub.fileRequests("config.json").filter((r) => r.path.includes("/resolve/")).length,
      1,
    );
    // A pin names the commit current when it was made, not the branch: once the hub moves, a new
    // pin names the new commit and its sums, while the first still names the old ones.
    const changed = generatedBytes(10, 5);
    const moved = fx.hub.putRepo("acme/tiny", { ...files, [shard1]: changed });
    const again = await fx.pin("hf:acme/tiny");
    assert(again.kind === "hf");
    assertEquals(again.commit, moved);
    const sumOf = (p: typeof pinned, path: string) => p.files.find((f) => f.path === path)?.sha256;
    assertEquals(sumOf(again, shard1), sha256Hex(changed));
    assertEquals(pinned.commit, fx.commit);
    assert(moved !== fx.commit);
    assertEquals(sumOf(pinned, shard1), sha256Hex(files[shard1]!));
    const missing = await assertRejects(() => fx.pin("hf:acme/nothere"), AppError);
    assertEquals(missing.code, "weights_unresolvable");
    const noFile = await assertRejects(() => fx.pin("hf:acme/tiny/absent.gguf"), AppError);
    assert(noFile.message.includes("no file 'absent.gguf'"), noFile.message);
  } finally {
    await fx.close();
  }
});

Deno.test("a GGUF split is pinned whole; a repository of several GGUFs asks which", async () => {
  const hub = startFakeHub({ treePageSize: 2, requireToken: "hf_secret_token" });
  try {
    const parts = {
      "Q4/m-Q4-00001-of-00003.gguf": generatedBytes(100, 1),
      "Q4/m-Q4-00002-of-00003.gguf": generatedBytes(100, 2),
      "Q4/m-Q4-00003-of-00003.gguf": generatedBytes(100, 3),
    };
    const commit = hub.putRepo("acme/split", parts);
    const client = new HfClient({ endpoint: hub.url, token: "hf_secret_token", fetch });
    const one = await pinSource(parseSource("hf:acme/split"), { hub: client });
    assert(one.kind === "hf");
    assertEquals(one.commit, commit);
    assertEquals(one.entry, "Q4/m-Q4-00001-of-00003.gguf");
    assertEquals(one.files.length, 3);
    const byPart = await pinSource(parseSource("hf:acme/split/Q4/m-Q4-00002-of-00003.gguf"), {
      hub: client,
    });
    assert(byPart.kind === "hf" && byPart.files.length === 3);
    hub.putRepo("acme/many", { "a.gguf": generatedBytes(10, 1), "b.gguf": generatedBytes(10, 2) });
    const many = await assertRejects(
      () => pinSource(parseSource("hf:acme/many"), { hub: client }),
      AppError,
    );
    assert(many.message.includes("name one"), many.message);
    // Without the token the gated repository is refused with the reason, and the token never shows.
    const anon = new HfClient({ endpoint: hub.url, fetch });
    const gated = await assertRejects(
      () => pinSource(parseSource("hf:acme/split"), { hub: anon }),
      AppError,
    );
    assertEquals(gated.code, "weights_unresolvable");
    assert(gated.message.includes("private or gated"), gated.message);
    const wrong = new HfClient({ endpoint: hub.url, token: "hf_wrong", fetch });
    const e = await assertRejects(
      () => pinSource(parseSource("hf:acme/split"), { hub: wrong }),
      AppError,
    );
    assert(!e.message.includes("hf_wrong"));
  } finally {
    await hub.close();
  }
});

Deno.test("a repository with only pickle weights is refused before they are fetched", async () => {
  const hub = startFakeHub();
  try {
    hub.putRepo("acme/old", {
      "pytorch_model.bin": generatedBytes(100, 1),
      "config.json": generatedBytes(10, 2),
    });
    const client = new HfClient({ endpoint: hub.url, fetch });
    const e = await assertRejects(
      () => pinSource(parseSource("hf:acme/old"), { hub: client }),
      AppError,
    );
    assertEquals(e.code, "weights_pickle_refused");
    assertEquals(hub.fileRequests("pytorch_model.bin").length, 0);
    const allowed = await pinSource(parseSource("hf:acme/old"), { hub: client, allowPickle: true });
    assert(allowed.kind === "hf" && allowed.allowPickle === true);
  } finally {
    await hub.close();
  }
});

Deno.test("the pinned source is the model's origin in the store, kept across a reload", async () => {
  const fx = await hubFixture();
  const store = await openStore(":memory:");
  try {
    const origin = await fx.pin(`hf:acme/tiny/${shard1}`);
    const clock = new FakeClock();
    const catalog = await ModelCatalog.load({ store, clock });
    await catalog.upsert({
      name: "tiny",
      engine: "llamacpp",
      source: `hf:acme/tiny/${shard1}`,
      origin,
    });
    await catalog.upsert({ name: "tiny", engine: "llamacpp", source: `hf:acme/tiny/${shard1}` });
    const reloaded = (await ModelCatalog.load({ store, clock })).get("tiny")!;
    assertEquals(reloaded.origin, origin);
    assertEquals(reloaded.allowPickle, false);
  } finally {
    store.close();
    await fx.close();
  }
});
