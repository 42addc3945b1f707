/** Test helper: a sim engine on a free port for the length of one test, closed even on failure. */
import OpenAI from "openai";
import { type RunningSimEngine, type SimEngineServeOptions, startSimEngine } from "./serve.ts";

export interface SimEngineFixture extends RunningSimEngine {
  /** An official OpenAI SDK client pointed at the engine, without retries to hide failures. */
  openai: OpenAI;
  /** /metrics parsed into name → value. */
  metrics(): Promise<Map<string, number>>;
}

export async function withSimEngine(
  opts: SimEngineServeOptions,
  fn: (engine: SimEngineFixture) => Promise<void>,
): Promise<void> {
  const engine = await startSimEngine(opts);
  const headers: Record<string, string> = opts.apiKey
    ? { authorization: `Bearer ${opts.apiKey}` }
    : {};
  const fixture: SimEngineFixture = {
    ...engine,
    openai: new OpenAI({
      baseURL: `${engine.url}/v1`,
      apiKey: opts.apiKey ?? "unused",
      maxRetries: 0,
    }),
    metrics: async () => {
      const text = await (await fetch(`${engine.url}/metrics`, { headers })).text();
      const rows = text.split("\n").filter((l) => l && !l.startsWith("#"));
      return new Map(rows.map((l) => {
        const [name, value] = l.split(" ");
        return [name!, Number(value)];
      }));
    },
  };
  try {
    await fn(fixture);
  } finally {
    await engine.close();
  }
}
