/**
 * The control plane's mirror: weights fetched once from the hub (or a URL), checked exactly as a
 * node checks them (the same fetcher), kept under DATA/mirror/, and served to nodes that have no
 * route to the internet. A version is pinned when added; once complete it never changes — a new
 * commit is a new version, and adding a complete version again returns it as it is.
 */
import { and, eq } from "drizzle-orm";
import { ulid } from "ulid";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { Store } from "../../db/store.ts";
import { mirrorVersions } from "../../db/schema.ts";
import { AppError } from "../../core/errors.ts";
import { manifestDigest, type WeightsFetcher } from "../../core/weights/fetcher.ts";
import {
  type PinnedSource,
  redactUrl,
  type RemoteSource,
  versionDir,
} from "../../core/weights/pinned_source.ts";
import type { FetchProgress } from "../../core/weights/progress.ts";
import { removeWeights } from "../../core/weights/remove_weights.ts";
import type { HfClient } from "./hf_client.ts";
import { parseSource, shown } from "./parse_source.ts";
import { pinSource } from "./pin_source.ts";

export type MirrorRow = typeof mirrorVersions.$inferSelect;
export type MirrorVersion = Omit<MirrorRow, "digest"> & { progress: FetchProgress | null };

export interface MirrorDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** A fetcher whose weightsDir is the mirror directory and whose hub is the origin. */
  fetcher: WeightsFetcher;
  mirrorDir: string;
  hub: HfClient | null;
}

export interface MirrorAddInput {
  source: string;
  sha256?: string;
  allowPickle?: boolean;
}

interface Running {
  abort: AbortController;
  done: Promise<void>;
  progress: FetchProgress | null;
}

export class MirrorService {
  readonly #running = new Map<string, Running>();

  constructor(private readonly deps: MirrorDeps) {}

  /** Pins the source and starts fetching it; answers at once with the version. */
  async add(input: MirrorAddInput): Promise<MirrorVersion> {
    const parsed = parseSource(input.source, {
      ...(input.sha256 !== undefined ? { sha256: input.sha256 } : {}),
      ...(this.deps.hub ? { hubEndpoint: this.deps.hub.endpoint } : {}),
    });
    if (parsed.kind === "local") {
      throw new AppError("weights_source_invalid", {
        source: parsed.path,
        detail: "the mirror fetches from the hub or a URL; a path on a node is not mirrored",
      }, "source");
    }
    const pinned = await pinSource(parsed, {
      hub: this.deps.hub,
      ...(input.allowPickle ? { allowPickle: true } : {}),
    }) as RemoteSource;
    return await this.addPinned(input.source, pinned);
  }

  /**
   * Starts fetching a source already pinned (a model's, as it is added: the very commit and sums
   * its nodes will fetch); answers at once with the version, an existing one when it is there.
   */
  async addPinned(source: string, pinned: RemoteSource): Promise<MirrorVersion> {
    await this.deps.fetcher.checkSpace(pinned);
    const dir = versionDir(pinned);
    const digest = manifestDigest(pinned);
    const [existing] = await this.deps.store.db.select().from(mirrorVersions)
      .where(and(eq(mirrorVersions.versionDir, dir), eq(mirrorVersions.digest, digest)));
    if (existing) {
      if (existing.status === "failed") {
        await this.deps.store.write((tx) =>
          tx.update(mirrorVersions).set({ status: "fetching", error: null })
            .where(eq(mirrorVersions.id, existing.id))
        );
        this.#start(existing.id, existing.pinned as RemoteSource);
      }
      return await this.get(existing.id);
    }
    const row: MirrorRow = {
      id: ulid(),
      source: shown(source.trim()),
      versionDir: dir,
      digest,
      pinned,
      status: "fetching",
      bytesTotal: pinned.files.every((f) => f.size !== null)
        ? pinned.files.reduce((a, f) => a + f.size!, 0)
        : null,
      error: null,
      createdAt: this.deps.clock.now(),
      completedAt: null,
    };
    await this.deps.store.write((tx) => tx.insert(mirrorVersions).values(row));
    this.deps.logger.info("mirror version added", { id: row.id, source: row.source });
    this.#start(row.id, pinned);
    return await this.get(row.id);
  }

  async list(): Promise<MirrorVersion[]> {
    const rows = await this.deps.store.db.select().from(mirrorVersions)
      .orderBy(mirrorVersions.createdAt);
    return rows.map((r) => this.#view(r));
  }

  async get(id: string): Promise<MirrorVersion> {
    const [row] = await this.deps.store.db.select().from(mirrorVersions)
      .where(eq(mirrorVersions.id, id));
    if (!row) throw new AppError("not_found", { path: `mirror version ${id}` });
    return this.#view(row);
  }

  /** Stops a fetch in progress, deletes the version's files (not those another version holds). */
  async remove(id: string): Promise<MirrorVersion> {
    const version = await this.get(id);
    const running = this.#running.get(id);
    if (running) {
      running.abort.abort(new Error("removed"));
      await running.done;
    }
    const others = (await this.deps.store.db.select().from(mirrorVersions))
      .filter((r) => r.id !== id).map((r) => r.pinned as PinnedSource);
    await removeWeights(this.deps.mirrorDir, version.pinned as PinnedSource, others);
    await this.deps.store.write((tx) => tx.delete(mirrorVersions).where(eq(mirrorVersions.id, id)));
    this.deps.logger.info("mirror version removed", { id, source: version.source });
    return version;
  }

  /** Carries on with versions a previous run left fetching (their .part files are still there). */
  async resume(): Promise<void> {
    const rows = await this.deps.store.db.select().from(mirrorVersions)
      .where(eq(mirrorVersions.status, "fetching"));
    for (const r of rows) this.#start(r.id, r.pinned as RemoteSource);
  }

  /** Resolves when the version's fetch in progress (if any) has ended. */
  async settled(id: string): Promise<MirrorVersion> {
    await this.#running.get(id)?.done;
    return await this.get(id);
  }

  /**
   * The file on disk for `/mirror/<relPath>`, or null: only complete versions are served, and
   * only the files their pinned list names.
   */
  async fileFor(relPath: string): Promise<string | null> {
    const rows = await this.deps.store.db.select().from(mirrorVersions)
      .where(eq(mirrorVersions.status, "complete"));
    for (const r of rows) {
      if (!relPath.startsWith(`${r.versionDir}/`)) continue;
      const inner = relPath.slice(r.versionDir.length + 1);
      const pinned = r.pinned as RemoteSource;
      if (pinned.files.some((f) => f.path === inner)) {
        return `${this.deps.mirrorDir}/${r.versionDir}/${inner}`;
      }
    }
    return null;
  }

  async close(): Promise<void> {
    for (const r of this.#running.values()) r.abort.abort(new Error("the control plane stopped"));
    await Promise.allSettled([...this.#running.values()].map((r) => r.done));
  }

  #start(id: string, pinned: RemoteSource): void {
    if (this.#running.has(id)) return;
    const abort = new AbortController();
    const entry: Running = { abort, done: Promise.resolve(), progress: null };
    entry.done = (async () => {
      try {
        await this.deps.fetcher.ensure(pinned, {
          signal: abort.signal,
          onProgress: (p) => (entry.progress = p),
        });
        await this.deps.store.write((tx) =>
          tx.update(mirrorVersions).set({ status: "complete", completedAt: this.deps.clock.now() })
            .where(eq(mirrorVersions.id, id))
        );
        this.deps.logger.info("mirror version complete", { id });
      } catch (e) {
        if (abort.signal.aborted) return; // stopped or removed: left as it was
        const message = (e as Error).message;
        this.deps.logger.warn("mirror version failed", { id, error: message });
        await this.deps.store.write((tx) =>
          tx.update(mirrorVersions).set({ status: "failed", error: message })
            .where(eq(mirrorVersions.id, id))
        );
      } finally {
        this.#running.delete(id);
      }
    })();
    this.#running.set(id, entry);
  }

  #view(row: MirrorRow): MirrorVersion {
    const { digest: _, ...rest } = row;
    // A URL's query may be a signature: it is kept for fetching, never shown.
    const pinned = rest.pinned.kind === "url"
      ? { ...rest.pinned, url: redactUrl(rest.pinned.url) }
      : rest.pinned;
    return { ...rest, pinned, progress: this.#running.get(row.id)?.progress ?? null };
  }
}
