/**
 * The folders' import rules (docs/architecture.md, "Layout"): core/ is the contract both
 * processes share, server/ and agent/ are peers that meet only there, appliance/ is the one
 * room that wires both into one box, and db/ serves the control plane without knowing it.
 * Every .ts/.tsx import in the tree is read through Deno's own module graph (`deno info`), so a
 * type-only import, a re-export and a dynamic import all count.
 */
import { assert, assertEquals } from "./assert.ts";
import { cycleOf, roomArrows, topFloorBreaks, upwardImports } from "./floors.ts";

/** One import: the importing file and line, and the file imported, both relative to the root. */
export interface ImportEdge {
  from: string;
  line: number;
  to: string;
}

const root = new URL("../", import.meta.url);
const rootPath = decodeURIComponent(root.pathname);

/** locales/ is a leaf of message text that error codes double as keys of, so core/ may read it. */
const onlyFrom: Record<string, readonly string[]> = {
  core: ["core", "locales"],
  locales: ["locales"],
};
const never: Record<string, readonly string[]> = {
  agent: ["server", "appliance"],
  server: ["agent", "appliance"],
  db: ["server", "agent", "appliance"],
};
const isTest = (path: string) => /_test\.tsx?$/.test(path);
const roomOf = (path: string) => (path.includes("/") ? path.slice(0, path.indexOf("/")) : "");

/** Why an import breaks the layout, or undefined when it keeps it. */
export function layoutBreak(edge: ImportEdge): string | undefined {
  const from = roomOf(edge.from);
  const to = roomOf(edge.to);
  // tests/ is the end-to-end kit: it starts whole processes, so it may reach everything.
  if (from === "tests" || from === to) return undefined;
  const only = onlyFrom[from];
  // A test anywhere may use the assertions and helpers under tests/.
  if (only && !only.includes(to) && !(to === "tests" && isTest(edge.from))) {
    return `${from}/ imports only ${only.map((r) => `${r}/`).join(" and ")}`;
  }
  if (never[from]?.includes(to)) {
    if (to === "appliance") return "appliance/ is a composition root: only main.ts starts it";
    return from === "db"
      ? "db/ serves the control plane without importing it or the agent"
      : `${from}/ and ${to}/ are peers that meet only in core/ (and over the wire)`;
  }
  return undefined;
}

/** Every layout break, one line each: `file:line imports target: why`. */
export function layoutBreaks(edges: readonly ImportEdge[]): string[] {
  return edges.flatMap((e) => {
    const why = layoutBreak(e);
    return why ? [`${e.from}:${e.line} imports ${e.to}: ${why}`] : [];
  });
}

async function sourceFiles(dir: URL, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.name.startsWith(".") || e.name === "node_modules" || (!rel && e.name === "data")) {
      continue;
    }
    const path = rel + e.name;
    if (e.isDirectory) out.push(...await sourceFiles(new URL(`${e.name}/`, dir), `${path}/`));
    else if (/\.tsx?$/.test(e.name)) out.push(path);
  }
  return out;
}

interface InfoDependency {
  code?: { specifier?: string; span: { start: { line: number } } };
  type?: { specifier?: string; span: { start: { line: number } } };
}

/** The tree's imports of its own files, as Deno's module graph has them. */
export async function treeImports(): Promise<{ files: string[]; edges: ImportEdge[] }> {
  const files = await sourceFiles(root);
  const dir = await Deno.makeTempDir({ prefix: "llmgw-layout-" });
  try {
    const entry = `${dir}/all.ts`;
    const lines = files.map((f) => `import ${JSON.stringify(new URL(f, root).href)};`);
    await Deno.writeTextFile(entry, lines.join("\n") + "\n");
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", `${rootPath}deno.json`, entry],
      cwd: rootPath,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert(out.success, `deno info failed: ${new TextDecoder().decode(out.stderr)}`);
    const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules: { specifier: string; dependencies?: InfoDependency[] }[];
    };
    // npm packages resolve into node_modules/ inside the tree (a symlinked node_modules resolves
    // outside it): they are nobody's room, so they never break the layout.
    const inTree = (href: string | undefined) => {
      if (!href?.startsWith(root.href)) return undefined;
      const path = decodeURIComponent(href.slice(root.href.length));
      return path.startsWith("node_modules/") ? undefined : path;
    };
    const edges: ImportEdge[] = [];
    for (const m of graph.modules) {
      const from = inTree(m.specifier);
      if (!from) continue;
      for (const d of m.dependencies ?? []) {
        for (const r of [d.code, d.type]) {
          const to = inTree(r?.specifier);
          if (r && to) edges.push({ from, line: r.span.start.line + 1, to });
        }
      }
    }
    return { files, edges };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("core/ is the contract, server/ and agent/ meet only there, db/ imports neither", async () => {
  const { files, edges } = await treeImports();
  // The graph really holds the tree: every room's files, and imports from each.
  for (const room of ["core", "server", "agent", "appliance", "db", "tests"]) {
    assert(edges.some((e) => e.from.startsWith(`${room}/`)), `no imports read from ${room}/`);
  }
  assert(files.includes("appliance/up.ts") && files.includes("server/cli/server.ts"));
  const breaks = [...new Set(layoutBreaks(edges))];
  assertEquals(breaks, [], `imports that break the layout:\n  ${breaks.join("\n  ")}`);
});

Deno.test("the layout rules name each kind of break, with file and line", () => {
  const edge = (from: string, to: string): ImportEdge => ({ from, line: 7, to });
  assertEquals(
    layoutBreaks([
      edge("agent/weights/fetcher.ts", "server/errors.ts"),
      edge("server/nodes/node_hub.ts", "agent/engines/metric_dialect.ts"),
      edge("server/router/load_test.ts", "agent/sim_engine/serve.ts"),
      edge("agent/agent.ts", "appliance/local_node.ts"),
      edge("db/schema.ts", "agent/weights/mod.ts"),
      edge("core/flags.ts", "server/config.ts"),
      edge("core/errors.ts", "tests/assert.ts"),
      edge("locales/en.ts", "core/errors.ts"),
    ]),
    [
      "agent/weights/fetcher.ts:7 imports server/errors.ts: agent/ and server/ are peers that meet only in core/ (and over the wire)",
      "server/nodes/node_hub.ts:7 imports agent/engines/metric_dialect.ts: server/ and agent/ are peers that meet only in core/ (and over the wire)",
      "server/router/load_test.ts:7 imports agent/sim_engine/serve.ts: server/ and agent/ are peers that meet only in core/ (and over the wire)",
      "agent/agent.ts:7 imports appliance/local_node.ts: appliance/ is a composition root: only main.ts starts it",
      "db/schema.ts:7 imports agent/weights/mod.ts: db/ serves the control plane without importing it or the agent",
      "core/flags.ts:7 imports server/config.ts: core/ imports only core/ and locales/",
      "core/errors.ts:7 imports tests/assert.ts: core/ imports only core/ and locales/",
      "locales/en.ts:7 imports core/errors.ts: locales/ imports only locales/",
    ],
  );
  assertEquals(
    layoutBreaks([
      edge("appliance/up.ts", "agent/agent.ts"),
      edge("appliance/up.ts", "server/serve.ts"),
      edge("server/models/plan.ts", "core/engines/engine_traits.ts"),
      edge("db/schema.ts", "core/weights/pinned_source.ts"),
      edge("core/errors.ts", "locales/mod.ts"),
      edge("core/ulid_test.ts", "tests/assert.ts"),
      edge("tests/e2e/up_node_test.ts", "agent/agent.ts"),
      edge("main.ts", "appliance/up.ts"),
    ]),
    [],
  );
});

Deno.test("only the top floor imports the top floor, and the rooms' only cycles are listed", async () => {
  const { edges } = await treeImports();
  assertEquals(topFloorBreaks(edges), []);
  const arrows = roomArrows(edges);
  const stale = Object.keys(upwardImports).filter((a) => !arrows.has(a));
  assertEquals(stale, [], "listed upward imports that no longer exist: take them off the list");
  const rest = new Set([...arrows.keys()].filter((a) => !(a in upwardImports)));
  const cycle = cycleOf(rest);
  assertEquals(
    cycle,
    undefined,
    `a cycle among server/'s rooms: ${cycle?.join(" -> ")}; the first import of each arrow:\n  ${
      cycle?.slice(1).map((to, i) => {
        const e = arrows.get(`${cycle[i]} -> ${to}`)!;
        return `${e.from}:${e.line} imports ${e.to}`;
      }).join("\n  ")
    }`,
  );
});

Deno.test("the floor rules name a room that imports the top floor, and find a cycle", () => {
  const edge = (from: string, to: string): ImportEdge => ({ from, line: 3, to });
  assertEquals(
    topFloorBreaks([
      edge("server/routes/v1.ts", "server/wiring/deps.ts"),
      edge("server/cli/server.ts", "server/wiring/serve.ts"),
      edge("server/wiring/app.ts", "server/wiring/deps.ts"),
      edge("server/portal/portal_test.ts", "server/wiring/app.ts"),
    ]),
    ["server/routes/v1.ts:3 imports server/wiring/deps.ts: only the top floor imports the top floor"],
  );
  assertEquals(cycleOf(new Set(["a -> b", "b -> c"])), undefined);
  assertEquals(cycleOf(new Set(["a -> b", "b -> c", "c -> a"])), ["a", "b", "c", "a"]);
});
