/**
 * The cluster page with 20 nodes and 80 cards, each with a full hour of samples (360 per chart,
 * three lines a card), renders in well under 100 ms of server time, and shows each card's memory,
 * busy share, temperature and power against its limit, and its hour as lines with the figures in
 * text.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import type { GpuInfo } from "../../core/protocol/host_report.ts";
import type { NodeView } from "../nodes/node_hub.ts";
import type { PortalCtx, Viewer } from "./context.ts";
import { Fmt, wordsFor } from "./i18n.ts";
import { type CardHistory, ClusterPage } from "./pages/cluster.tsx";
import { bucketMs, keptMs, RecentSamples } from "../observe/recent_samples.ts";

function syntheticNodes(nodes: number, cards: number, now: number): NodeView[] {
  return Array.from({ length: nodes }, (_, n) => {
    const gpus: GpuInfo[] = Array.from({ length: cards }, (_, i) => ({
      index: i,
      uuid: `GPU-${n}-${i}`,
      name: "NVIDIA H100 80GB HBM3",
      memoryTotalBytes: 80 * 2 ** 30,
      memoryUsedBytes: (10 + ((n * cards + i) % 70)) * 2 ** 30,
      utilizationPercent: (n * 7 + i * 13) % 100,
      temperatureC: 40 + ((n + i) % 40),
      powerDrawW: 200 + i * 10,
      powerLimitW: 700,
      processes: [{ pid: 1000 + i, usedMemoryBytes: 2 ** 30, replicaId: `s-${n}-${i}` }],
    }));
    return {
      id: `node-${n}`,
      name: `gpu-node-${String(n).padStart(2, "0")}`,
      state: n % 5 === 0 ? "cordoned" : "ready",
      connected: true,
      cordoned: n % 5 === 0,
      draining: false,
      labels: { rack: `r${n % 4}` },
      version: "1.0.0",
      createdAt: now - 86_400_000,
      lastHeardAt: now - 1500,
      gpu: { source: "nvml", gpus },
      replicas: gpus.map((_, i) => ({
        replicaId: `s-${n}-${i}`,
        model: `model-${i}`,
        state: "ready",
      })) as unknown as NodeView["replicas"],
      warnings: [],
    };
  });
}

Deno.test("cluster page: 20 nodes and 80 cards render under 100 ms", async () => {
  const now = Date.UTC(2026, 10, 30, 12);
  const viewer = {
    person: { id: "p", username: "op", displayName: null },
    actor: { role: "operator", readOnly: false, orgId: null, teamId: null },
    csrf: "x".repeat(40),
    prefs: { locale: "tr", timeZone: "Europe/Istanbul" },
  } as unknown as Viewer;
  const ctx: PortalCtx = {
    viewer,
    words: wordsFor("tr"),
    fmt: new Fmt("tr", "Europe/Istanbul"),
    now,
    origin: "http://127.0.0.1:8080",
  };
  const nodes = syntheticNodes(20, 4, now);
  let clock = now - keptMs;
  const samples = new RecentSamples(() => clock);
  for (; clock <= now; clock += bucketMs) {
    for (const n of nodes) {
      const gpus = (n.gpu as { gpus: GpuInfo[] }).gpus;
      samples.cards(n.name, gpus.map((g) => ({ ...g, utilizationPercent: (clock / 1000) % 100 })));
    }
  }
  clock = now;
  const history: CardHistory = {
    series: (node, index) => samples.cardSeries(node, index),
    from: now - keptMs,
    to: now,
  };
  const render = async () =>
    String(await <ClusterPage ctx={ctx} viewer={viewer} nodes={nodes} history={history} />);
  await render(); // warm-up: JIT and Intl caches
  const times: number[] = [];
  let html = "";
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    html = await render();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const median = times[2]!;
  console.log(
    `cluster page, 20 nodes / 80 cards: median ${median.toFixed(1)} ms, ${html.length} bytes`,
  );
  assert(median < 100, `median render ${median.toFixed(1)} ms`);
  assert((html.match(/<tr>/g) ?? []).length >= 80, "a row per card");
  assert(html.includes("700 W") && html.includes("°C"), "power against limit, temperature");
  assert(html.includes("%"), "Turkish percentages");
  assert(/%\d/.test(html), "written %NN in Turkish");
  assert(html.includes("model-3"), "what runs on each card");
  assertEquals((html.match(/data-chart="card-[^"]+"/g) ?? []).length, 80, "a chart per card");
  assert(html.includes('data-points="360"'), "an hour of ten-second samples");
  assert(/aria-label="Belleği?[^"]*son %\d+, en yüksek %\d+"|son %\d+, en yüksek %\d+/.test(html));
  // For looking at: the page with the stylesheet inlined (tests/artifacts is not committed).
  const out = Deno.env.get("LLMGW_ARTIFACTS") ??
    new URL("../../tests/artifacts/portal/", import.meta.url).pathname;
  await Deno.mkdir(out, { recursive: true });
  const css = await Deno.readTextFile(new URL("../../web/portal.css", import.meta.url));
  await Deno.writeTextFile(
    `${out}/cluster-synthetic.html`,
    html.replace('<link rel="stylesheet" href="/static/portal.css">', `<style>${css}</style>`),
  );
});
