/**
 * Several control planes in one test process: real apps (the harness's buildServices) on one
 * store (one Store object, its one write path: a SQLite file, or a PostgreSQL database of its
 * own) and one clock, the first one's settings written before the others start (so they load
 * them). What one control plane learns from another through the store, on a clock the test
 * moves (tests/e2e/control_planes_test.ts runs them as processes).
 */
import { FakeClock } from "../../core/clock.ts";
import { openStore } from "../../db/store.ts";
import { type Harness, type HarnessOptions, startHarness } from "./harness.ts";
import { type StoreKind, storeKinds } from "./stores.ts";

export interface SharedStore {
  planes: Harness[];
  close(): Promise<void>;
}

export async function startPlanes(
  n: number,
  opts: HarnessOptions & { setUp?: (first: Harness) => Promise<void>; kind?: StoreKind } = {},
): Promise<SharedStore> {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-shared-store-" });
  const clock = opts.clock ?? new FakeClock();
  const store = await openStore(await (opts.kind ?? storeKinds[0]!).where(dir));
  const planes: Harness[] = [];
  const close = async () => {
    for (const p of planes) await p.close();
    await store.close();
    await Deno.remove(dir, { recursive: true });
  };
  try {
    planes.push(await startHarness({ ...opts, clock, store }));
    await opts.setUp?.(planes[0]!);
    // The first leads (it writes the slot grants); the others are standbys.
    while (planes.length < n) {
      planes.push(await startHarness({ ...opts, clock, store, leads: false }));
    }
  } catch (e) {
    await close();
    throw e;
  }
  return { planes, close };
}
