/**
 * The cluster's settings in the store. At the first start every setting is seeded from
 * server.yaml (or its default); from then on the store holds them and `ctl config set` or
 * `PUT /api/v1/settings` changes them. Precedence for a running process: flag, then environment,
 * then the store, then server.yaml, then the default. A setting marked live applies at once
 * (through the appliers registered with `onChange`); the others are stored and apply at the next
 * start, and the answer says so.
 */
import { inArray } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { SettingDefs } from "../../core/settings.ts";
import type { ChangeFeed } from "../control/change_feed.ts";
import type { Store } from "../../db/store.ts";
import { clusterSettings } from "../../db/schema.ts";
import { AppError } from "../../core/errors.ts";

export interface SettingView {
  key: string;
  value: unknown;
  default: unknown;
  type: string;
  live: boolean;
  description: string;
  env: string;
  flag: string;
  /** `flag/env` when this process was given it and ignores the stored value. */
  source: "store" | "flag/env";
}

export interface SetResult {
  /** Applied now. */
  applied: string[];
  /** Stored; applies when the control plane restarts. */
  restart: string[];
  /** Stored, but this process was given the setting by a flag or env, which still wins. */
  overridden: string[];
}

type Values = Record<string, unknown>;

export class ClusterSettings {
  readonly #byKey = new Map<string, string>();
  readonly #appliers = new Map<string, ((value: unknown) => void)[]>();

  private constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      logger: Logger;
      defs: SettingDefs;
      /** The running config, changed in place for live settings. */
      config: Values;
      overridden: ReadonlySet<string>;
      /** Told of each change, so the other control planes reload. */
      changes?: ChangeFeed;
    },
  ) {
    for (const [name, d] of Object.entries(deps.defs)) this.#byKey.set(d.key, name);
  }

  /**
   * Seeds settings the store lacks from `config` (server.yaml or defaults; never a flag's or
   * env's value, which are this process's alone), then takes the stored values into `config`.
   */
  static async open(deps: {
    store: Store;
    clock: Clock;
    logger: Logger;
    defs: SettingDefs;
    config: Values;
    overridden?: ReadonlySet<string>;
    /** Settings server.yaml sets: each whose value differs from the store's is logged. */
    inFile?: ReadonlySet<string>;
    changes?: ChangeFeed;
  }): Promise<ClusterSettings> {
    const overridden = deps.overridden ?? new Set<string>();
    const inFile = deps.inFile ?? new Set<string>();
    const s = new ClusterSettings({ ...deps, overridden });
    const rows = await deps.store.db.select().from(clusterSettings);
    const stored = new Map(rows.map((r) => [r.key, r.value]));
    const seed: (typeof clusterSettings.$inferInsert)[] = [];
    const now = deps.clock.now();
    for (const [name, d] of Object.entries(deps.defs)) {
      if (d.secret) continue;
      if (!stored.has(d.key)) {
        if (!overridden.has(name)) {
          seed.push({ key: d.key, value: deps.config[name], updatedAt: now });
        }
        continue;
      }
      if (overridden.has(name)) continue;
      const parsed = d.schema.safeParse(stored.get(d.key));
      if (parsed.success) {
        if (inFile.has(name)) fileDiffers(deps.logger, d.key, deps.config[name], parsed.data);
        deps.config[name] = parsed.data;
      } else {
        deps.logger.warn("a stored setting is not valid any more; using server.yaml's", {
          setting: d.key,
        });
      }
    }
    if (seed.length) {
      await deps.store.write((tx) => tx.insert(clusterSettings).values(seed).onConflictDoNothing());
    }
    return s;
  }

  /** Called with the new value whenever the live setting `name` changes. */
  onChange(name: string, fn: (value: unknown) => void): void {
    const list = this.#appliers.get(name) ?? [];
    list.push(fn);
    this.#appliers.set(name, list);
  }

  /** Live settings that have no applier: a mistake the tests catch. */
  unapplied(): string[] {
    return Object.entries(this.deps.defs).filter(([name, d]) => d.live && !this.#appliers.has(name))
      .map(([, d]) => d.key);
  }

  list(): SettingView[] {
    return Object.entries(this.deps.defs).filter(([, d]) => !d.secret).map(([name, d]) => ({
      key: d.key,
      value: this.deps.config[name],
      default: d.default,
      type: d.type,
      live: d.live,
      description: d.description,
      env: d.env,
      flag: `--${d.flag}`,
      source: this.deps.overridden.has(name) ? "flag/env" : "store",
    }));
  }

  /** Validates every change first (nothing is stored if one is wrong), stores, applies. */
  async set(changes: Values): Promise<SetResult> {
    const parsed: { name: string; key: string; value: unknown }[] = [];
    for (const [key, raw] of Object.entries(changes)) {
      const name = this.#byKey.get(key);
      const def = name ? this.deps.defs[name] : undefined;
      if (!name || !def || def.secret) {
        throw new AppError("invalid_request", { detail: `unknown setting ${key}` }, key);
      }
      const r = def.schema.safeParse(raw);
      if (!r.success) {
        throw new AppError(
          "invalid_request",
          { detail: `${key}: ${r.error.issues.map((i) => i.message).join("; ")}` },
          key,
        );
      }
      parsed.push({ name, key, value: r.data });
    }
    const now = this.deps.clock.now();
    await this.deps.store.write(async (tx) => {
      for (const p of parsed) {
        await tx.insert(clusterSettings).values({ key: p.key, value: p.value, updatedAt: now })
          .onConflictDoUpdate({
            target: clusterSettings.key,
            set: { value: p.value, updatedAt: now },
          });
      }
    });
    const result: SetResult = { applied: [], restart: [], overridden: [] };
    for (const p of parsed) {
      const def = this.deps.defs[p.name]!;
      if (this.deps.overridden.has(p.name)) result.overridden.push(p.key);
      else if (!def.live) result.restart.push(p.key);
      else {
        this.deps.config[p.name] = p.value;
        for (const fn of this.#appliers.get(p.name) ?? []) fn(p.value);
        result.applied.push(p.key);
      }
    }
    this.deps.logger.info("settings changed", { ...result });
    this.deps.changes?.changed("settings");
    return result;
  }

  /**
   * Takes live settings another control plane changed in the store into this one's config, and
   * applies them. Settings that need a restart wait for one, as on the control plane that set them.
   */
  async reload(): Promise<void> {
    const rows = await this.deps.store.db.select().from(clusterSettings);
    for (const row of rows) {
      const name = this.#byKey.get(row.key);
      const def = name ? this.deps.defs[name] : undefined;
      if (!name || !def || def.secret || !def.live || this.deps.overridden.has(name)) continue;
      const r = def.schema.safeParse(row.value);
      if (!r.success || JSON.stringify(r.data) === JSON.stringify(this.deps.config[name])) continue;
      this.deps.config[name] = r.data;
      for (const fn of this.#appliers.get(name) ?? []) fn(r.data);
      this.deps.logger.info("a setting changed on another control plane applied", { key: row.key });
    }
  }

  /** The stored values of some keys (for tests and `ctl config get`). */
  async stored(keys: string[]): Promise<Map<string, unknown>> {
    const rows = await this.deps.store.db.select().from(clusterSettings).where(
      inArray(clusterSettings.key, keys),
    );
    return new Map(rows.map((r) => [r.key, r.value]));
  }
}

/**
 * An edit to server.yaml after the first start changes nothing (the store holds the settings):
 * said at start, with the command that applies the file's value, so it is not lost silently.
 */
function fileDiffers(logger: Logger, key: string, file: unknown, stored: unknown): void {
  if (JSON.stringify(file) === JSON.stringify(stored)) return;
  const scalar = typeof file === "string" || typeof file === "number" || typeof file === "boolean";
  const word = String(file);
  const shown = /^[\w.:/@+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
  logger.warn("server.yaml differs from the stored setting, which applies", {
    setting: key,
    file_value: file,
    stored_value: stored,
    apply: scalar ? `llmgw ctl config set ${key} ${shown}` : "llmgw ctl config edit",
  });
}
