/**
 * Throughput check: the weights fetcher (streaming, hashing, writing, renaming) against `curl`
 * (streaming and writing only) on the same file from the same loopback server. The goal is at
 * least half of curl's speed.
 *
 *   deno run -A agent/weights/bench.ts [--size 1GiB] [--rounds 2] [--hash worker|inline]
 *
 * The server is a separate Deno process, so it does not share the fetcher's thread.
 */
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { systemClock } from "../../core/clock.ts";
import { silentLogger } from "../../core/log.ts";
import { WeightsFetcher } from "../../core/weights/fetcher.ts";
import { formatBytes } from "../../core/weights/disk.ts";

function parseSize(s: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(B|KiB|MiB|GiB)?$/i.exec(s.trim());
  if (!m) throw new Error(`not a size: ${s} (e.g. 1GiB, 256MiB)`);
  const mult: Record<string, number> = { b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };
  return Math.round(Number(m[1]) * mult[(m[2] ?? "b").toLowerCase()]!);
}

// Python's sendfile(2) server first: it serves from the page cache without copying through user
// space, so the machine's cores go to the two clients being compared. Deno's, where there is no
// python3.
const pythonServer = `
import http.server, os, sys
path, port_file = sys.argv[1], sys.argv[2]
size = os.path.getsize(path)
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(size))
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        with open(path, "rb") as f:
            self.connection.sendfile(f)
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(port_file, "w").write(str(s.server_address[1]))
s.serve_forever()
`;

const serverCode = `
const [path, portFile] = Deno.args;
const size = (await Deno.stat(path)).size;
Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: (a) => Deno.writeTextFileSync(portFile, String(a.port)) },
  async () => {
    const f = await Deno.open(path);
    return new Response(f.readable, { headers: { "content-length": String(size) } });
  });
`;

export async function benchWeights(
  size: number,
  rounds: number,
  hashOn: "worker" | "inline" = "worker",
): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-bench-weights-" });
  const server: { child?: Deno.ChildProcess } = {};
  try {
    const src = `${dir}/model.gguf`;
    const hash = createHash("sha256");
    const block = new Uint8Array(4 * 1024 * 1024);
    crypto.getRandomValues(block.subarray(0, 65536));
    for (let i = 65536; i < block.length; i += 65536) block.copyWithin(i, 0, 65536);
    const f = await Deno.open(src, { write: true, create: true, truncate: true });
    for (let left = size; left > 0;) {
      const n = Math.min(left, block.length);
      block[0] = left & 0xff; // blocks differ, so the file is not one repeated block
      const chunk = block.subarray(0, n);
      hash.update(chunk);
      let off = 0;
      while (off < n) off += await f.write(chunk.subarray(off));
      left -= n;
    }
    f.close();
    const sha256 = hash.digest("hex");

    const portFile = `${dir}/port`;
    const python = await hasPython();
    server.child = new Deno.Command(python ? "python3" : Deno.execPath(), {
      args: python ? ["-c", pythonServer, src, portFile] : ["eval", serverCode, src, portFile],
      stdout: "null",
      stderr: "inherit",
    }).spawn();
    let port = "";
    for (let i = 0; i < 200 && !port; i++) {
      await new Promise((r) => setTimeout(r, 50));
      port = await Deno.readTextFile(portFile).catch(() => "");
    }
    if (!port) throw new Error("the file server did not start");
    const url = `http://127.0.0.1:${port}/model.gguf`;

    let bestCurl = Infinity;
    let bestOurs = Infinity;
    for (let r = 1; r <= rounds; r++) {
      const t0 = performance.now();
      const curl = await new Deno.Command("curl", {
        args: ["-sSf", "-o", `${dir}/curl.bin`, url],
      }).output();
      if (!curl.success) throw new Error(`curl failed: ${new TextDecoder().decode(curl.stderr)}`);
      bestCurl = Math.min(bestCurl, (performance.now() - t0) / 1000);
      await Deno.remove(`${dir}/curl.bin`);

      const fetcher = new WeightsFetcher({
        fetch,
        clock: systemClock,
        logger: silentLogger,
        weightsDir: `${dir}/weights-${r}`,
        hashOnWorkerFrom: hashOn === "worker" ? 0 : Infinity,
      });
      const t1 = performance.now();
      await fetcher.ensure({
        kind: "url",
        url,
        files: [{ path: "model.gguf", size, sha256 }],
        entry: "model.gguf",
      });
      bestOurs = Math.min(bestOurs, (performance.now() - t1) / 1000);
      await Deno.remove(`${dir}/weights-${r}`, { recursive: true });
    }
    const mbps = (s: number) => `${(size / s / 1024 ** 2).toFixed(0)} MiB/s`;
    const ratio = bestCurl / bestOurs;
    console.log(
      `file:   ${formatBytes(size)} from ${url} (${python ? "python sendfile" : "Deno"} server, ` +
        `best of ${rounds}, ${navigator.hardwareConcurrency} cores)`,
    );
    console.log(`curl:   ${bestCurl.toFixed(2)} s  ${mbps(bestCurl)}  (write only)`);
    console.log(
      `llmgw:  ${bestOurs.toFixed(2)} s  ${mbps(bestOurs)}  (write + sha256 on ${
        hashOn === "worker" ? "a worker thread" : "the main thread"
      } + check)`,
    );
    console.log(
      `ratio:  ${ratio.toFixed(2)} of curl's speed — ${
        ratio >= 0.5 ? "PASS" : "FAIL"
      } (goal ≥ 0.5)`,
    );
    return ratio >= 0.5 ? 0 : 1;
  } finally {
    try {
      server.child?.kill("SIGTERM");
      await server.child?.status;
    } catch { /* already gone */ }
    await Deno.remove(dir, { recursive: true });
  }
}

async function hasPython(): Promise<boolean> {
  try {
    return (await new Deno.Command("python3", { args: ["-c", "pass"] }).output()).success;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      size: { type: "string", default: "1GiB" },
      rounds: { type: "string", default: "2" },
      hash: { type: "string", default: "worker" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(
      "Usage: deno run -A agent/weights/bench.ts [--size 1GiB] [--rounds 2] [--hash worker|inline]",
    );
    Deno.exit(0);
  }
  const hashOn = values.hash === "inline" ? "inline" : "worker";
  Deno.exit(await benchWeights(parseSize(values.size!), Number(values.rounds), hashOn));
}
