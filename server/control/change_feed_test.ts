import { assertEquals } from "../../tests/assert.ts";
import { systemClock } from "../../core/clock.ts";
import { silentLogger } from "../../core/log.ts";
import { openStore, type Store } from "../../db/store.ts";
import { LimitsBook } from "../accounting/limits.ts";
import { eventually } from "../../tests/helpers/llmgw_process.ts";
import { ModelCatalog } from "../router/catalog.ts";
import { int, live } from "../../core/settings.ts";
import { ClusterSettings } from "../settings/cluster_settings.ts";
import { Tenancy } from "../tenancy/tenancy.ts";
import { StoreChangeFeed } from "./change_feed.ts";
import { type StoreKind, storeKinds } from "../../tests/helpers/stores.ts";
import { skipNote } from "../../tests/helpers/skip.ts";

/** A control plane's caches over its own connections to the shared store. */
async function plane(path: string, stores: Store[], feeds: StoreChangeFeed[]) {
  const store = await openStore(path);
  stores.push(store);
  const changes = new StoreChangeFeed({
    store,
    clock: systemClock,
    logger: silentLogger,
    pollMs: 50,
    // Where the store notifies, only the notification can bring a change in the test's time.
    notifiedPollMs: 60_000,
    reloadMs: 60_000,
  });
  feeds.push(changes);
  const catalog = await ModelCatalog.load({ store, clock: systemClock, changes });
  const limits = await LimitsBook.load({ store, clock: systemClock, changes });
  const tenancy = await Tenancy.load({ store, clock: systemClock, changes });
  changes.on("catalog", () => catalog.reload());
  changes.on("limits", () => limits.reload());
  changes.on("tenancy", () => tenancy.reload());
  const config: Record<string, unknown> = { waitMs: 100 };
  const settings = await ClusterSettings.open({
    store,
    clock: systemClock,
    logger: silentLogger,
    defs: { waitMs: live(int("test.wait_ms", 100, "a live test setting")) },
    config,
    changes,
  });
  const applied: unknown[] = [];
  settings.onChange("waitMs", (v) => applied.push(v));
  changes.on("settings", () => settings.reload());
  await changes.start();
  return { catalog, limits, tenancy, settings, config, applied };
}

for (const kind of storeKinds) {
  Deno.test({
    name: `a change on one control plane reaches another's catalog, limits, orgs and live ` +
      `settings (${kind.dialect === "postgres" ? "notified" : "polled"})${skipNote(kind.missing)}`,
    ignore: !!kind.missing,
    fn: () => changesReachTheOther(kind),
  });
}

async function changesReachTheOther(kind: StoreKind): Promise<void> {
  const dir = await Deno.makeTempDir();
  const stores: Store[] = [];
  const feeds: StoreChangeFeed[] = [];
  try {
    const where = await kind.where(dir);
    const a = await plane(where, stores, feeds);
    const b = await plane(where, stores, feeds);
    const heard: string[] = [];
    b.catalog.subscribe((entry, name) => heard.push(`${name}:${entry ? "set" : "gone"}`));

    await a.catalog.upsert({ name: "m1", engine: "sim", source: "/models/m1.gguf" });
    await eventually("m1 on b", () => Promise.resolve(b.catalog.get("m1") ? true : undefined));
    await a.limits.set({ kind: "global", id: "global" }, { rpm: 123 });
    await eventually(
      "the limit on b",
      () =>
        Promise.resolve(b.limits.get({ kind: "global", id: "global" }).rpm === 123 || undefined),
    );
    const org = await a.tenancy.createOrg("Acme");
    await eventually("the org on b", () => Promise.resolve(b.tenancy.orgs.get(org.id)?.name));
    await a.settings.set({ "test.wait_ms": 250 });
    await eventually(
      "the setting on b",
      () => Promise.resolve(b.applied.length ? true : undefined),
    );
    assertEquals([b.config.waitMs, b.applied], [250, [250]]);
    await a.catalog.remove("m1");
    await eventually("m1 gone on b", () => Promise.resolve(b.catalog.get("m1") ? undefined : true));
    assertEquals(heard, ["m1:set", "m1:gone"]);
  } finally {
    for (const f of feeds) f.stop();
    for (const s of stores) await s.close();
    await Deno.remove(dir, { recursive: true });
  }
}
