/**
 * Several control planes in one test process: real apps (the harness's buildServices) on one
 * SQLite store file (one Store object, its one write path) and one clock, the first one's settings written before the others start (so
 * they load them). Until the control planes can run as processes on a shared store, this is how
 * a test sees what one control plane learns from another through the store.
 */
import { FakeClock } from "../../core/clock.ts";
import { openStore } from "../../db/store.ts";
import { type Harness, type HarnessOptions, startHarness } from "./harness.ts";

export interface SharedStore {
  planes: Harness[];
  close(): Promise<void>;
}

export async function startPlanes(
  n: number,
  opts: HarnessOptions & { setUp?: (first: Harness) => Promise<void> } = {},
): Promise<SharedStore> {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-shared-store-" });
  const clock = opts.clock ?? new FakeClock();
  const store = await openStore(`${dir}/store.db`);
  const planes: Harness[] = [];
  const close = async () => {
    for (const p of planes) await p.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  };
  try {
    planes.push(await startHarness({ ...opts, clock, store }));
    await opts.setUp?.(planes[0]!);
    while (planes.length < n) planes.push(await startHarness({ ...opts, clock, store }));
  } catch (e) {
    await close();
    throw e;
  }
  return { planes, close };
}
