/**
 * The docs' shell examples (the README's detail pages), run as written against a real `llmgw up`
 * (only where they name the place: `ctl`, the data directory and the address are this appliance's,
 * and the bench is short). An example that cannot work as written fails here.
 */
import { assert, assertEquals } from "../assert.ts";
import { selfCommand, selfCommandEnv } from "../../core/self_command.ts";
import { type Appliance, startAppliance } from "../helpers/appliance.ts";

const page = (path: string) => Deno.readTextFile(new URL(`../../${path}`, import.meta.url));
const noJq = !(await new Deno.Command("sh", { args: ["-c", "command -v jq"] }).output()).success;

/** The first ```sh block after `marker` in the page at `path`. */
async function block(path: string, marker: string): Promise<string> {
  const text = await page(path);
  const at = text.indexOf(marker);
  assert(at >= 0, `${path} has ${marker}`);
  const m = /```sh\n([\s\S]*?)```/.exec(text.slice(at));
  assert(m, `a sh block after ${marker}`);
  return m[1]!;
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Runs `script` in bash (-e, pipefail), with `llmgw` and `ctl` meaning this appliance. */
async function run(app: Appliance, script: string) {
  const { cmd, args } = selfCommand([]);
  const preamble = [
    "set -eo pipefail",
    `llmgw() { ${[cmd, ...args].map(quote).join(" ")} "$@"; }`,
    `ctl() { llmgw ctl --data ${quote(app.dataDir)} --url ${quote(app.url)} "$@"; }`,
  ].join("\n");
  const out = await new Deno.Command("bash", {
    args: ["-c", `${preamble}\n${script}`],
    env: selfCommandEnv(),
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

/** The docs' own way of calling the CLI, as the test's. */
const asHere = (app: Appliance, text: string) =>
  text
    .replace(/^ctl\(\) \{.*\}$/m, "")
    .replaceAll("npm run -s llmgw -- ctl", "ctl")
    .replaceAll("npm run llmgw --", "llmgw")
    .replaceAll("data/local.key", `${app.dataDir}/local.key`)
    .replaceAll("http://127.0.0.1:8080", app.url);

Deno.test({
  name: "docs/people-and-money.md: the ctl example runs as written",
  ignore: noJq,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const app = await startAppliance();
    try {
      const text = await block("docs/people-and-money.md", "# People and money");
      const r = await run(app, asHere(app, text));
      assertEquals(r.code, 0, `${r.stdout}\n${r.stderr}`);
      // `--actor` takes a person's username (or an actor id): one the example made.
      const added = [...text.matchAll(/people add (\S+)/g)].map((m) => m[1]);
      for (const [, actor] of text.matchAll(/--actor (\S+)/g)) {
        assert(added.includes(actor), `--actor ${actor} names nobody the example added`);
      }
    } finally {
      assertEquals(await app.stop(), 0);
      await Deno.remove(app.dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "docs/performance.md: the bench example's load is served, not refused by the default limits",
  ignore: noJq,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const app = await startAppliance();
    try {
      const text = await block("docs/performance.md", "`llmgw bench` puts load");
      // Shorter than the page's 10 s, and as JSON to read the errors.
      const short = asHere(app, text).replace(/--duration \S+/, "--duration 3s --json");
      assert(short.includes("--json"), "the example names a duration");
      const r = await run(app, short);
      assertEquals(r.code, 0, `${r.stdout}\n${r.stderr}`);
      const report = JSON.parse(r.stdout.slice(r.stdout.indexOf("{\n")));
      assert(report.requests > 0, r.stdout);
      assertEquals(report.errors, {}, "every request answered");
    } finally {
      assertEquals(await app.stop(), 0);
      await Deno.remove(app.dataDir, { recursive: true });
    }
  },
});
