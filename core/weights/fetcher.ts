/**
 * The node's weights: a pinned source in, a path an engine can load out. Fetched once per node
 * however many replicas ask at once (four replicas on four cards once wrote the same `.part`
 * files over each other), from a mirror first and the origin after, checked against the
 * published sha256, and for a set finished only when every file is checked and a marker written.
 *
 * Layout under `weightsDir`: `<versionDir>/<path>` (see `versionDir`), `<path>.part` while a
 * file arrives, `.<name>.sha256` beside each checked file, `.complete.<digest>` per finished set.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { AppError } from "../errors.ts";
import { readChecksum, removeIfThere, sha256File, sizeIfThere } from "./checksum_file.ts";
import { formatBytes, freeBytes as systemFreeBytes } from "./disk.ts";
import { type Candidate, downloadFile } from "./download.ts";
import {
  checkSource,
  describeSource,
  isSet,
  type PinnedFile,
  type PinnedSource,
  type RemoteSource,
  versionDir,
} from "./pinned_source.ts";
import { ProgressFanOut, type ProgressListener } from "./progress.ts";
import { checkFiles } from "./check_set.ts";

export interface WeightsFetcherDeps {
  fetch: typeof fetch;
  clock: Clock;
  logger: Logger;
  /** Where this node (or the mirror) keeps weights. */
  weightsDir: string;
  /** The origin of `hf` sources; absent on a node that has no route to it (mirror only). */
  hub?: { endpoint: string; token?: string };
  /** Sent to mirrors as a bearer credential (a node's own credential). */
  mirrorToken?: string;
  /** How mirrors are reached, when not by `fetch` (a node's: trusting the cluster CA only). */
  mirrorFetch?: typeof fetch;
  freeBytes?: (dir: string) => Promise<number | null>;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Tries per file (default 6), each resuming with Range. */
  tries?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Files at least this large (or of unknown size) are hashed on a worker thread (64 MiB). */
  hashOnWorkerFrom?: number;
  /** Least time between progress reports (default 2 s); phase starts and ends always report. */
  progressIntervalMs?: number;
}

export interface EnsureOptions {
  /**
   * Mirror base URLs, tried in order before the origin; a file is asked for at
   * `<base>/mirror/<versionDir>/<path>`. A node's are its control planes' `…/cluster/v1`.
   */
  mirrors?: string[];
  onProgress?: ProgressListener;
  /** Ends this caller's wait; the fetch stops only when no caller is left. */
  signal?: AbortSignal;
  allowPickle?: boolean;
}

export interface EnsureResult {
  /** What an engine is given: the file, a split's first part, or the set's directory. */
  path: string;
  /** "cached" when nothing had to be fetched. */
  outcome: "local" | "cached" | "downloaded";
}

interface Flight {
  promise: Promise<EnsureResult>;
  fanOut: ProgressFanOut;
  waiters: number;
  abort: AbortController;
}

export class WeightsFetcher {
  readonly #flights = new Map<string, Flight>();
  /** Files being written, by final path: two sources naming one file never share a `.part`. */
  readonly #files = new Map<string, Promise<void>>();
  readonly #freeBytes: (dir: string) => Promise<number | null>;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  #closed = false;

  constructor(private readonly deps: WeightsFetcherDeps) {
    this.#freeBytes = deps.freeBytes ?? systemFreeBytes;
    this.#sleep = deps.sleep ?? abortableSleep;
  }

  /** The directory a remote source lands in. */
  dirOf(source: RemoteSource): string {
    return join(this.deps.weightsDir, versionDir(source));
  }

  async ensure(source: PinnedSource, opts: EnsureOptions = {}): Promise<EnsureResult> {
    if (this.#closed) throw new Error("the weights fetcher is closed");
    checkSource(source, opts.allowPickle);
    if (source.kind === "local") {
      if ((await sizeIfThere(source.path)) === null) {
        throw new AppError("weights_not_local", { path: source.path });
      }
      return { path: source.path, outcome: "local" };
    }
    const key = `${versionDir(source)}#${manifestDigest(source)}`;
    let flight = this.#flights.get(key);
    if (!flight) {
      const abort = new AbortController();
      const fanOut = new ProgressFanOut(this.deps.clock, this.deps.progressIntervalMs ?? 2_000);
      const promise = this.#run(source, opts.mirrors ?? [], fanOut, abort.signal)
        .finally(() => this.#flights.delete(key));
      flight = { promise, fanOut, waiters: 0, abort };
      this.#flights.set(key, flight);
    }
    return await this.#wait(flight, opts);
  }

  /** Stops every fetch in progress and waits for them to let go of their files. */
  async close(): Promise<void> {
    this.#closed = true;
    const flights = [...this.#flights.values()];
    for (const f of flights) f.abort.abort(new Error("the weights fetcher was stopped"));
    await Promise.allSettled(flights.map((f) => f.promise));
  }

  async #wait(flight: Flight, opts: EnsureOptions): Promise<EnsureResult> {
    const listener = opts.onProgress;
    if (listener) flight.fanOut.listeners.add(listener);
    flight.waiters++;
    const left = Promise.withResolvers<never>();
    const onAbort = () => left.reject(opts.signal!.reason);
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();
    try {
      return await Promise.race([flight.promise, left.promise]);
    } finally {
      opts.signal?.removeEventListener("abort", onAbort);
      if (listener) flight.fanOut.listeners.delete(listener);
      if (--flight.waiters === 0) flight.abort.abort(new Error("nobody waits for these weights"));
      left.promise.catch(() => {});
    }
  }

  async #run(
    source: RemoteSource,
    mirrors: string[],
    fanOut: ProgressFanOut,
    signal: AbortSignal,
  ): Promise<EnsureResult> {
    const dir = this.dirOf(source);
    const name = describeSource(source);
    const entryPath = source.entry !== undefined ? join(dir, source.entry) : dir;
    const marker = join(dir, `.complete.${manifestDigest(source)}`);
    if (await this.#alreadyThere(source, dir, marker)) {
      return { path: entryPath, outcome: "cached" };
    }
    await this.#checkSpace(source, dir, name);
    await Deno.mkdir(dir, { recursive: true });

    const total = sumSizes(source.files);
    let before = 0;
    const report = (done: number, force = false) =>
      fanOut.report({ source: name, phase: "fetching", bytesDone: done, bytesTotal: total }, force);
    report(0, true);
    let downloaded = false;
    for (const file of source.files) {
      const target = join(dir, file.path);
      const present = await sizeIfThere(target);
      if (present === null) {
        const base = before;
        downloaded = await this.#once(target, () =>
          downloadFile({
            fetch: this.deps.fetch,
            logger: this.deps.logger,
            sleep: this.#sleep,
            tries: this.deps.tries ?? 6,
            backoffBaseMs: this.deps.backoffBaseMs ?? 1_000,
            backoffMaxMs: this.deps.backoffMaxMs ?? 30_000,
            hashOnWorkerFrom: this.deps.hashOnWorkerFrom ?? defaultHashOnWorkerFrom(),
          }, {
            candidates: this.#candidates(source, file, mirrors),
            file,
            target,
            publisher: source.kind === "hf" ? `hf:${source.repo}` : "the source",
            display: source.kind === "hf" ? `hf:${source.repo}/${file.path}` : name,
            onBytes: (n) => report(base + n),
            signal,
          })) || downloaded;
      }
      before += (await sizeIfThere(target)) ?? 0;
      report(before);
    }
    report(before, true);

    // Every file is checked before the set counts as there: downloaded ones were hashed as they
    // streamed (their sidecar says so); any other is hashed now, four at a time.
    const checkedTotal = before;
    await checkFiles({
      dir,
      files: source.files,
      sourceName: name,
      publisher: source.kind === "hf" ? `hf:${source.repo}` : "the source",
      onProgress: (done, force) =>
        fanOut.report(
          { source: name, phase: "checking", bytesDone: done, bytesTotal: checkedTotal },
          force,
        ),
      signal,
    });
    if (isSet(source)) await Deno.writeTextFile(marker, `${describeSource(source)}\n`);
    this.deps.logger.info("weights ready", {
      source: name,
      outcome: downloaded ? "downloaded" : "cached",
    });
    return { path: entryPath, outcome: downloaded ? "downloaded" : "cached" };
  }

  /**
   * Runs `download` for `target` unless another flight (a different source naming the same file,
   * e.g. one shard asked for alone while its set is fetched) is writing it; then waits for that
   * one instead. Answers whether this call downloaded it.
   */
  async #once(target: string, download: () => Promise<void>): Promise<boolean> {
    for (let other = this.#files.get(target); other; other = this.#files.get(target)) {
      await other.catch(() => {});
      if ((await sizeIfThere(target)) !== null) return false;
    }
    const mine = download().finally(() => this.#files.delete(target));
    this.#files.set(target, mine);
    await mine;
    return true;
  }

  /**
   * A finished set has its marker; a lone file its sidecar holding the pinned sum. A sidecar with
   * another sum means the file was checked as different bytes: refused, and kept.
   */
  async #alreadyThere(source: RemoteSource, dir: string, marker: string): Promise<boolean> {
    if (isSet(source)) return (await sizeIfThere(marker)) !== null;
    const file = source.files[0]!;
    const target = join(dir, file.path);
    if ((await sizeIfThere(target)) === null) return false;
    const kept = await readChecksum(target);
    if (kept === file.sha256) return true;
    if (kept !== null) {
      throw new AppError("weights_checksum_conflict", {
        file: describeSource(source),
        actual: kept,
        expected: file.sha256,
      });
    }
    return false; // no sidecar: the check phase hashes it
  }

  /**
   * Refuses (weights_no_space, with the bytes needed and free) a source whose missing bytes do
   * not fit this fetcher's directory: asked before a fetch is even queued (the mirror, as a model
   * is added), as well as at the start of every fetch.
   */
  checkSpace(source: RemoteSource): Promise<void> {
    return this.#checkSpace(source, this.dirOf(source), describeSource(source));
  }

  async #checkSpace(source: RemoteSource, dir: string, name: string): Promise<void> {
    let needed = 0;
    for (const f of source.files) {
      if (f.size === null) continue;
      const target = join(dir, f.path);
      if ((await sizeIfThere(target)) !== null) continue;
      needed += f.size - Math.min(f.size, (await sizeIfThere(`${target}.part`)) ?? 0);
    }
    if (needed === 0) return;
    const free = await this.#freeBytes(this.deps.weightsDir);
    if (free !== null && needed > free) {
      throw new AppError("weights_no_space", {
        source: name,
        needed: formatBytes(needed),
        free: formatBytes(free),
        dir: this.deps.weightsDir,
      });
    }
  }

  #candidates(source: RemoteSource, file: PinnedFile, mirrors: string[]): Candidate[] {
    const rel = `${versionDir(source)}/${file.path}`.split("/").map(encodeURIComponent).join("/");
    const out: Candidate[] = mirrors.map((m) => ({
      url: `${m.replace(/\/+$/, "")}/mirror/${rel}`,
      headers: this.deps.mirrorToken ? { authorization: `Bearer ${this.deps.mirrorToken}` } : {},
      label: `mirror ${redactBase(m)}`,
      ...(this.deps.mirrorFetch ? { fetch: this.deps.mirrorFetch } : {}),
    }));
    if (source.kind === "url") {
      out.push({ url: source.url, headers: {}, label: describeSource(source) });
    } else if (this.deps.hub) {
      const { endpoint, token } = this.deps.hub;
      const path = file.path.split("/").map(encodeURIComponent).join("/");
      out.push({
        url: `${endpoint.replace(/\/+$/, "")}/${source.repo}/resolve/${source.commit}/${path}`,
        headers: token ? { authorization: `Bearer ${token}` } : {},
        label: redactBase(endpoint),
      });
    }
    if (out.length === 0) {
      throw new AppError("weights_fetch_failed", {
        file: describeSource(source),
        detail: "this node has no mirror and no route to the hub",
      });
    }
    return out;
  }
}

/**
 * A hashing thread pays only where a core is free for it: on two cores or fewer it competes
 * with the transfer itself and measured slower (agent/weights/bench.ts), so there it stays off.
 */
function defaultHashOnWorkerFrom(): number {
  return (navigator.hardwareConcurrency ?? 1) > 2 ? 64 * 1024 * 1024 : Infinity;
}

/** Identifies a set by what it holds, so two different sets in one version folder differ. */
export function manifestDigest(source: RemoteSource): string {
  const lines = source.files.map((f) => `${f.sha256}  ${f.path}`).sort().join("\n");
  return createHash("sha256").update(lines).digest("hex").slice(0, 16);
}

function sumSizes(files: PinnedFile[]): number | null {
  let total = 0;
  for (const f of files) {
    if (f.size === null) return null;
    total += f.size;
  }
  return total;
}

function redactBase(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return "(an unparseable address)";
  }
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export { removeIfThere, sha256File };
