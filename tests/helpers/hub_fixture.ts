/** A fake hub holding one small safetensors model, the fetcher that reads it, and clean-up. */
import { FakeClock } from "../../core/clock.ts";
import { silentLogger } from "../../core/log.ts";
import { type FakeHub, generatedBytes, startFakeHub } from "./fake_hf.ts";
import { HfClient } from "../../server/weights/hf_client.ts";
import { parseSource } from "../../server/weights/parse_source.ts";
import { pinSource } from "../../server/weights/pin_source.ts";
import { WeightsFetcher, type WeightsFetcherDeps } from "../../core/weights/fetcher.ts";
import type { PinnedSource } from "../../core/weights/pinned_source.ts";

export const shard1 = "model-00001-of-00002.safetensors";
export const shard2 = "model-00002-of-00002.safetensors";

export const tinyFiles = (): Record<string, Uint8Array> => ({
  [shard1]: generatedBytes(1_500_000, 1),
  [shard2]: generatedBytes(1_000_000, 2),
  "config.json": new TextEncoder().encode('{"model_type":"llama","hidden_size":64}\n'),
  "tokenizer.json": new TextEncoder().encode('{"version":"1.0","model":{"type":"BPE"}}\n'),
  "pytorch_model.bin": generatedBytes(4096, 3),
  "README.md": new TextEncoder().encode("# tiny\n"),
});

export interface HubFixture {
  hub: FakeHub;
  dir: string;
  client: HfClient;
  commit: string;
  pin(source: string, opts?: { allowPickle?: boolean }): Promise<PinnedSource>;
  fetcher(extra?: Partial<WeightsFetcherDeps>): WeightsFetcher;
  close(): Promise<void>;
}

export async function hubFixture(): Promise<HubFixture> {
  const hub = startFakeHub();
  const commit = hub.putRepo("acme/tiny", tinyFiles());
  const dir = await Deno.makeTempDir({ prefix: "llmgw-weights-" });
  const client = new HfClient({ endpoint: hub.url, fetch });
  const fetchers: WeightsFetcher[] = [];
  return {
    hub,
    dir,
    client,
    commit,
    pin: (source, opts = {}) => pinSource(parseSource(source), { hub: client, ...opts }),
    fetcher(extra = {}) {
      const f = new WeightsFetcher({
        fetch,
        clock: new FakeClock(),
        logger: silentLogger,
        weightsDir: `${dir}/node`,
        hub: { endpoint: hub.url },
        sleep: () => Promise.resolve(),
        progressIntervalMs: 0,
        ...extra,
      });
      fetchers.push(f);
      return f;
    },
    async close() {
      await Promise.all(fetchers.map((f) => f.close()));
      await hub.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
