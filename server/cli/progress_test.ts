/**
 * Progress through the front door: `llmgw ctl model serve` and `llmgw mirror add --wait` run as
 * child processes against a small fake admin API that walks a model through placement ("fits
 * nowhere" first), weights, engine start and health, and a mirror version through its bytes.
 * On a pseudo-terminal (`script`) they draw a progress line with the share, rate and time left;
 * with stdout a pipe the same run prints the stages and no progress line at all.
 */
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { selfCommand, selfCommandEnv } from "../../core/self_command.ts";
import { duration, Progress, progressLine, type ProgressOut } from "./progress.ts";

const noScript = (await new Deno.Command("sh", { args: ["-c", "command -v script"] }).output())
    .success
  ? undefined
  : "needs util-linux's script for a pseudo-terminal";

const total = 400 * 1024 * 1024;

/** A progress line as drawn: back to the line's start, the line cleared, then `re`. */
const line = (re: string) => new RegExp(`\r\u001b\\[2K${re}`);

/** The admin API's answers for a model served at `t0`: each stage by the time since. */
function fakeAdmin() {
  let servedAt = 0, mirroredAt = 0;
  const since = (t: number) => performance.now() - t;
  const replica = (state: string, extra: Record<string, unknown> = {}) => ({
    data: [{ id: "r1", model: "tiny", node: "gpu-1", state, gpus: [0], ...extra }],
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname.replace("/api/v1/", "");
    const json = (v: unknown) => Response.json(v);
    if (path === "models/serve") {
      servedAt = performance.now();
      return json({
        plan: {
          ok: true,
          name: "tiny",
          context: 2048,
          slots: 1,
          layouts: [],
          refusals: [],
          warnings: [],
        },
        added: true,
      });
    }
    if (path === "replicas") {
      const t = since(servedAt);
      if (t < 1200) return json({ data: [] });
      if (t < 1800) return json(replica("pending"));
      if (t < 4500) {
        const bytes = Math.floor(Math.min(1, (t - 1800) / 4000) * total);
        return json(replica("fetching", { fetched: { bytes, total } }));
      }
      if (t < 5500) return json(replica("starting"));
      return json(replica("ready"));
    }
    if (path === "models/tiny/explain") {
      return json({
        notes: [{ kind: "unplaceable", message: "fits nowhere — gpu-1: all cards busy" }],
        profiles: [],
      });
    }
    if (path === "models/tiny/smoke") return json({ ok: true, detail: "a chat completion" });
    const version = (status: string, bytesDone: number) => ({
      id: "v1",
      source: "hf:acme/tiny/tiny.gguf",
      versionDir: "acme/tiny/abc123",
      status,
      bytesTotal: total,
      error: null,
      progress: status === "fetching" ? { phase: "fetching", bytesDone, bytesTotal: total } : null,
    });
    if (path === "mirror" && req.method === "POST") {
      mirroredAt = performance.now();
      return json(version("fetching", 0));
    }
    if (path === "mirror/v1") {
      const t = since(mirroredAt);
      return json(
        t < 3000 ? version("fetching", Math.floor((t / 4000) * total)) : version("complete", total),
      );
    }
    return new Response("{}", { status: 404 });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

/** `llmgw ARGS`, on a pseudo-terminal through `script` or with stdout a pipe. */
async function llmgw(args: string[], tty: boolean): Promise<{ code: number; out: string }> {
  const { cmd, args: full } = selfCommand(args);
  const quoted = [cmd, ...full].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  // `script -e` exits with the command's status; the pseudo-terminal gets a width first.
  const [bin, argv] = tty
    ? ["script", ["-qec", `stty cols 160 2>/dev/null; ${quoted}`, "/dev/null"]]
    : [cmd, full];
  const out = await new Deno.Command(bin, {
    args: argv,
    clearEnv: true,
    env: { ...selfCommandEnv(), PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, out: text.decode(out.stdout) + text.decode(out.stderr) };
}

Deno.test({
  name: "ctl model serve on a terminal: each stage said, weights with share, rate and time left" +
    (noScript ? ` (ignored: ${noScript})` : ""),
  ignore: !!noScript,
}, async () => {
  const api = fakeAdmin();
  try {
    const conn = ["--url", api.url, "--token", "t"];
    const tty = await llmgw(["ctl", "model", "serve", "/models/tiny.gguf", ...conn], true);
    assertEquals(tty.code, 0, tty.out);
    const said = tty.out.replaceAll("\r\n", "\n");
    // The note from the reconciler comes at once, not after the whole wait.
    assertMatch(said, /placement: fits nowhere — gpu-1: all cards busy/);
    assertMatch(said, /placement: placed on gpu-1 \(cards 0\), waiting for the node to take it/);
    assertMatch(said, /weights: fetching on gpu-1/);
    assertMatch(said, /engine start: loading the model on gpu-1/);
    assertMatch(said, /health check: asking the replica on gpu-1/);
    assertMatch(said, /tiny answers: a chat completion/);
    // The progress line: redrawn in place, with the share, the bytes, the rate and time left.
    assertMatch(
      said,
      line(
        "weights {2}[█░]{20} \\d+% {2}[\\d.]+ MiB of 400\\.0 MiB {2}[\\d.]+ MiB/s {2}\\d+ s left",
      ),
    );
    assertMatch(said, line("placement … \\d+ s"));

    const piped = await llmgw(["ctl", "model", "serve", "/models/tiny.gguf", ...conn], false);
    assertEquals(piped.code, 0, piped.out);
    assertMatch(piped.out, /placement: fits nowhere/);
    assertMatch(piped.out, /engine start: loading the model/);
    assertEquals(piped.out.includes("\r"), false, "no progress line off a terminal");
    assertEquals(piped.out.includes("MiB/s"), false);
  } finally {
    await api.close();
  }
});

Deno.test({
  name: "mirror add --wait on a terminal draws the bytes' progress; piped, only the end" +
    (noScript ? ` (ignored: ${noScript})` : ""),
  ignore: !!noScript,
}, async () => {
  const api = fakeAdmin();
  try {
    const conn = ["--url", api.url, "--token", "t"];
    const tty = await llmgw(["mirror", "add", "hf:acme/tiny/tiny.gguf", "--wait", ...conn], true);
    assertEquals(tty.code, 0, tty.out);
    assertMatch(
      tty.out,
      line(
        "fetching acme/tiny/abc123 {2}[█░]{20} \\d+% {2}[\\d.]+ MiB of 400\\.0 MiB {2}[\\d.]+ MiB/s {2}\\d+ s left",
      ),
    );
    assertMatch(tty.out, /complete/);
    const piped = await llmgw(
      ["mirror", "add", "hf:acme/tiny/tiny.gguf", "--wait", ...conn],
      false,
    );
    assertEquals(piped.code, 0, piped.out);
    assertEquals(piped.out, "Mirror version v1: acme/tiny/abc123 (fetching)\ncomplete\n");
  } finally {
    await api.close();
  }
});

Deno.test("a progress line: share, bytes, rate, time left; nothing drawn off a terminal", () => {
  assertEquals(progressLine("x", 0, 100, undefined), `x  ${"░".repeat(20)} 0%  0 B of 100 B`);
  assertEquals(
    progressLine("w", 512 * 1024 ** 2, 1024 ** 3, 64 * 1024 ** 2),
    `w  ${"█".repeat(10)}${"░".repeat(10)} 50%  512.0 MiB of 1.0 GiB  64.0 MiB/s  8 s left`,
  );
  assertEquals(
    progressLine("w", 10, 100, 0),
    `w  ${"█".repeat(2)}${"░".repeat(18)} 10%  10 B of 100 B  0 B/s  stalled`,
  );
  assertEquals(progressLine("w", 2048, undefined, 1024), "w  2.0 KiB  1.0 KiB/s");
  assertEquals(duration(125), "2 min 5 s");
  assertEquals(duration(7300), "2 h 1 min");

  const written: string[] = [];
  let now = 0;
  const out = (tty: boolean): ProgressOut => ({
    isTerminal: () => tty,
    write: (t) => void written.push(t),
    columns: () => 200,
  });
  const off = new Progress({ out: out(false), now: () => now });
  off.bytes("w", 10, 100);
  off.waiting("placement");
  off.end();
  assertEquals(written.length, 0);
  const on = new Progress({ out: out(true), now: () => now });
  on.bytes("w", 0, 1000);
  now = 1000;
  on.bytes("w", 100, 1000);
  assert(written.at(-1)!.endsWith("10%  100 B of 1000 B  100 B/s  9 s left"), written.at(-1));
  on.end();
  assertEquals(written.at(-1), "\r\x1b[2K");
});
