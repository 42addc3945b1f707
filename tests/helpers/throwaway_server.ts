/**
 * What the tests' throwaway servers (slapd, a Samba DC, PostgreSQL) share: whether their binaries
 * are here, a free loopback port, running a setup command that must succeed, and a server kept in
 * the foreground (so the test owns the process) in a temp dir that goes with it.
 */

export function present(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A loopback port nobody listens on (now). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Whether someone listens on the loopback `port` already. */
export function portTaken(port: number): boolean {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return false;
  } catch {
    return true;
  }
}

/**
 * Runs a setup command to its end, `input` on its stdin; its stdout, or an error with the tail of
 * what it wrote when it fails.
 */
export async function run(
  argv: string[],
  opts: {
    env?: Record<string, string>;
    input?: string;
    cwd?: string;
    /** The command as named in the error (default: its first three words). */
    what?: string;
  } = {},
): Promise<string> {
  const child = new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    stdin: opts.input === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (opts.input !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.input));
    await w.close();
  }
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    const text = new TextDecoder().decode(out.stderr) + stdout;
    const what = opts.what ?? argv.slice(0, 3).join(" ");
    throw new Error(`${what} failed: ${text.slice(-2000)}`);
  }
  return stdout;
}

/** A temp dir made ready by `setup`; removed again when setup fails. */
export async function preparedDir(
  prefix: string,
  setup: (dir: string) => Promise<void>,
): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  try {
    await setup(dir);
  } catch (e) {
    await Deno.remove(dir, { recursive: true });
    throw e;
  }
  return dir;
}

export interface ThrowawayServer {
  /** Stops the server (SIGTERM, then waits for it) and removes its dir; again does nothing. */
  stop(): Promise<void>;
}

/**
 * Starts `argv` in the foreground and waits until it listens on `port` (within `waitMs`,
 * looking every `pollMs`); when it does not, or exits first, it is stopped, `dir` removed, and
 * the start fails. `dir` goes when it is stopped.
 */
export async function startServer(opts: {
  name: string;
  argv: string[];
  dir: string;
  port: number;
  waitMs: number;
  pollMs: number;
}): Promise<ThrowawayServer> {
  const child = new Deno.Command(opts.argv[0]!, {
    args: opts.argv.slice(1),
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  let stopped = false;
  const server = {
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await Deno.remove(opts.dir, { recursive: true });
    },
  };
  try {
    await waitForPort(opts, child);
  } catch (e) {
    await server.stop();
    throw e;
  }
  return server;
}

async function waitForPort(
  opts: { name: string; port: number; waitMs: number; pollMs: number },
  child: Deno.ChildProcess,
): Promise<void> {
  let exited = false;
  child.status.then(() => exited = true);
  const deadline = Date.now() + opts.waitMs;
  while (Date.now() < deadline && !exited) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port: opts.port })).close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, opts.pollMs));
    }
  }
  throw new Error(`${opts.name} did not listen on ${opts.port}${exited ? " (it exited)" : ""}`);
}
