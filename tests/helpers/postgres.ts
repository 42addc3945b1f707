/**
 * A throwaway PostgreSQL for tests: one cluster per test process (initdb in a temp dir, a random
 * port, sockets in that dir), started on first use and stopped when the process ends; each test
 * asks for a database of its own. Made with Debian's binaries (/usr/lib/postgresql/<n>/bin);
 * where they are absent, `postgresMissing` says so and the tests that need them are ignored.
 * As root, the cluster runs as the `postgres` user (initdb refuses root).
 */
import postgres from "postgres";
import { freePort, run as runCommand } from "./throwaway_server.ts";

function findBinDir(): string | undefined {
  try {
    const versions = [...Deno.readDirSync("/usr/lib/postgresql")].map((e) => e.name)
      .filter((n) => /^\d+$/.test(n)).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) {
      const bin = `/usr/lib/postgresql/${v}/bin`;
      try {
        Deno.statSync(`${bin}/initdb`);
        Deno.statSync(`${bin}/pg_ctl`);
        return bin;
      } catch { /* try the next version */ }
    }
  } catch { /* no PostgreSQL installed */ }
  return undefined;
}

const binDir = findBinDir();
const asRoot = Deno.uid() === 0;

/** Why the PostgreSQL tests cannot run here, or undefined when they can. */
export const postgresMissing: string | undefined = binDir
  ? undefined
  : "PostgreSQL binaries not found under /usr/lib/postgresql/*/bin (apt-get install postgresql)";

export interface PgCluster {
  port: number;
  dir: string;
  /** A URL for database `db` on this cluster. */
  url(db?: string): string;
  /** Stops the server (as a crash would, or cleanly) and starts it again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

let cluster: Promise<PgCluster> | undefined;

/** The process's cluster, started on first call. */
export function pgCluster(): Promise<PgCluster> {
  cluster ??= startCluster();
  return cluster;
}

/** A new, empty database on the process's cluster; returns its URL. */
export async function freshDatabase(): Promise<string> {
  const c = await pgCluster();
  const name = `t_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(c.url("postgres"), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return c.url(name);
}

/** A PostgreSQL command, as the `postgres` user when we are root (initdb and pg_ctl refuse root). */
function run(args: string[]): Promise<string> {
  return runCommand(asRoot ? ["runuser", "-u", "postgres", "--", ...args] : args, {
    cwd: "/",
    what: args.join(" "),
  });
}

async function startCluster(): Promise<PgCluster> {
  if (!binDir) throw new Error(postgresMissing);
  const dir = await Deno.makeTempDir({ prefix: "llmgw-pg-" });
  if (asRoot) await new Deno.Command("chown", { args: ["postgres:postgres", dir] }).output();
  const data = `${dir}/data`;
  await run([
    `${binDir}/initdb`,
    "-D",
    data,
    "-U",
    "postgres",
    "-A",
    "trust",
    "--no-sync",
    "-E",
    "UTF8",
  ]);
  const port = freePort();
  // No fsync (the files go with the test), but every commit reaches the WAL before it returns,
  // so a test that stops the server as a crash would loses nothing that was committed.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off ` +
    `-c full_page_writes=off -c max_connections=200`;
  const start = () =>
    run([`${binDir}/pg_ctl`, "-D", data, "-o", options, "-l", `${dir}/log`, "-w", "start"])
      .then(() => {});
  const stop = () => run([`${binDir}/pg_ctl`, "-D", data, "-m", "immediate", "-w", "stop"]);
  await start();
  // The server outlives no test process: stopped (and its files removed) on the way out.
  globalThis.addEventListener("unload", () => {
    const argv = [`${binDir}/pg_ctl`, "-D", data, "-m", "immediate", "-w", "stop"];
    const full = asRoot ? ["runuser", "-u", "postgres", "--", ...argv] : argv;
    new Deno.Command(full[0]!, { args: full.slice(1), stdout: "null", stderr: "null" })
      .outputSync();
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch { /* best effort */ }
  });
  return {
    port,
    dir,
    url: (db = "postgres") => `postgres://postgres@127.0.0.1:${port}/${db}`,
    stop: async () => {
      await stop();
    },
    start,
  };
}
