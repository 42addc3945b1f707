/**
 * The map matches the house: every path the README, CONTRIBUTING.md and docs/architecture.md name
 * exists. A moved or renamed file that a page still points newcomers at fails here, naming the page
 * and the path. Paths are read from code spans and links; a bare file name (`node_hub.ts`, as the
 * architecture tables write a second file of the same folder) must exist somewhere in the tree.
 */
import { assert, assertEquals } from "./assert.ts";

const root = new URL("../", import.meta.url);
const pages = ["README.md", "CONTRIBUTING.md", "docs/architecture.md"];
const rooms = [
  "agent",
  "appliance",
  "bench",
  "core",
  "db",
  "deploy",
  "docs",
  "locales",
  "scripts",
  "server",
  "tests",
  "web",
];
const topFiles = /^(main\.ts|deno\.json|package\.json|README\.md|CONTRIBUTING\.md)$/;
const fileName = /^[\w.-]+\.(ts|tsx|js|md|json|yaml|yml|sh|c|sql)$/;
/** Files of a data directory or of a build, which the pages name but the tree does not hold. */
const notInTree = new Set([
  "server.yaml",
  "agent.yaml",
  "replicas.json",
  "shards.json",
  "core/build_info.json",
]);
/** A placeholder the reader fills in (`agent/engines/NAME.ts`). */
const placeholder = /\/[A-Z_]+(\.\w+)?$/;

/** The paths a page names, each with the page's directory its relative links start from. */
export function namedPaths(text: string, pageDir: string): { path: string; bare: boolean }[] {
  const found: { path: string; bare: boolean }[] = [];
  const consider = (raw: string, relativeTo: string) => {
    // A span like `server/router/dispatch.ts` or `deploy/ha/`; arguments and anchors cut off.
    const token = raw.trim().split(/[\s#(]/)[0]!.replace(/[,.;:]+$/, "");
    if (token === "" || token.includes("*") || token.includes("<") || token.includes("…")) return;
    if (notInTree.has(token) || placeholder.test(token)) return;
    const firstDir = token.split("/")[0]!;
    if (token.includes("/")) {
      if (rooms.includes(firstDir)) found.push({ path: token, bare: false });
      else if (
        relativeTo !== "" && fileName.test(token.split("/").pop()!) && !token.startsWith("/")
      ) {
        if (!/^[A-Z]+\//.test(token) && !token.startsWith("../") && !/^https?:/.test(token)) {
          found.push({ path: relativeTo + token, bare: false });
        }
      }
      return;
    }
    if (topFiles.test(token)) found.push({ path: token, bare: false });
    else if (fileName.test(token)) {
      found.push(
        relativeTo !== "" ? { path: relativeTo + token, bare: true } : { path: token, bare: true },
      );
    }
  };
  let fence = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) {
      fence = !fence;
      continue;
    }
    if (fence) continue;
    for (const m of line.matchAll(/`([^`]+)`/g)) consider(m[1]!, "");
    for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^(https?:|mailto:|#)/.test(target)) continue;
      consider(target.split("#")[0]!, pageDir);
    }
  }
  return found;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(new URL(path, root));
    return true;
  } catch {
    return false;
  }
}

async function allFileNames(): Promise<Set<string>> {
  const names = new Set<string>();
  const walk = async (dir: URL) => {
    for await (const e of Deno.readDir(dir)) {
      if (e.name === "node_modules" || e.name.startsWith(".")) continue;
      if (e.isDirectory) await walk(new URL(`${e.name}/`, dir));
      else names.add(e.name);
    }
  };
  await walk(root);
  return names;
}

Deno.test("namedPaths reads code spans and links, and leaves out what is not a repository path", () => {
  const text = [
    "see `server/router/dispatch.ts` and `node_hub.ts`, [routing](routing.md#failures)",
    "`DATA/server.yaml`, `/v1/files`, `llmgw ctl keys create`, `../shared/fixtures/x.gguf`",
    "```",
    "`server/not/read.ts` inside a fence",
    "```",
  ].join("\n");
  assertEquals(namedPaths(text, "docs/"), [
    { path: "server/router/dispatch.ts", bare: false },
    { path: "node_hub.ts", bare: true },
    { path: "docs/routing.md", bare: true },
  ]);
});

Deno.test("every path the README, CONTRIBUTING.md and docs/architecture.md name exists", async () => {
  const names = await allFileNames();
  const missing: string[] = [];
  let checked = 0;
  for (const page of pages) {
    const text = await Deno.readTextFile(new URL(page, root));
    const dir = page.includes("/") ? page.slice(0, page.lastIndexOf("/") + 1) : "";
    for (const { path, bare } of namedPaths(text, dir)) {
      checked++;
      if (await exists(path)) continue;
      if (bare && names.has(path.split("/").pop()!)) continue;
      missing.push(`${page}: ${path}`);
    }
  }
  assert(checked > 100, `only ${checked} paths read: the reader has stopped seeing them`);
  assertEquals(missing, [], "paths named in the docs that are not in the tree");
});

Deno.test("the README's map names every room of server/ and every top-level folder", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", root));
  const unnamed: string[] = [];
  for await (const e of Deno.readDir(new URL("server/", root))) {
    if (e.isDirectory && !readme.includes(`\`${e.name}/\``)) unnamed.push(`server/${e.name}/`);
  }
  for await (const e of Deno.readDir(root)) {
    if (!e.isDirectory || e.name.startsWith(".") || e.name === "node_modules") continue;
    if (["data", "dist"].includes(e.name)) continue;
    if (!new RegExp(`^${e.name}/ `, "m").test(readme)) unnamed.push(`${e.name}/`);
  }
  assertEquals(unnamed.sort(), [], "folders the README's map leaves out");
});
