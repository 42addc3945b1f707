/**
 * Creates a data directory: the store, the cluster secret, the first administrator, the admin
 * token and server.yaml. Idempotent: whatever exists is left exactly as it is, and said so.
 */
import { ulid } from "ulid";
import type { Clock } from "../../core/clock.ts";
import { exists } from "../../core/exists.ts";
import { defaultYaml } from "../../core/settings.ts";
import { openStore } from "../../db/store.ts";
import { limits, users } from "../../db/schema.ts";
import { AdminTokens } from "../auth/admin_tokens.ts";
import { generatePassword, hashPassword, randomToken } from "../auth/secrets.ts";
import { serverSettings } from "../config.ts";
import { tlsNames } from "../nodes/cluster_listener.ts";
import { ensureClusterTls } from "../tls/cluster_tls.ts";
import { firstPasswordPath, keepFirstPassword } from "./first_password.ts";

export interface InitResult {
  dataDir: string;
  created: string[];
  existing: string[];
  /**
   * Only when the administrator was created by this run: shown once, stored only as a hash and
   * in `adminPasswordFile` until the first sign-in.
   */
  adminPassword?: string;
  adminPasswordFile?: string;
}

export const adminUsername = "admin";
/** Per-key defaults written at init; `ctl limits set --global` changes them. */
export const defaultLimits = { rpm: 60, tpm: 200_000 };

export async function initDataDir(
  dataDir: string,
  opts: { clock: Clock; listen?: string; tlsNames?: string },
): Promise<InitResult> {
  const created: string[] = [];
  const existing: string[] = [];
  const note = (made: boolean, what: string) => (made ? created : existing).push(what);

  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  note(
    await writeIfAbsent(`${dataDir}/cluster.secret`, () => randomToken("", 32) + "\n"),
    "cluster.secret",
  );
  note(
    await writeIfAbsent(
      `${dataDir}/server.yaml`,
      () =>
        "# llmgw control plane settings. Each one can also be given as a flag or env var;\n" +
        "# `llmgw server --help` lists them.\n" +
        defaultYaml(serverSettings, opts.listen ? { listen: opts.listen } : {}),
      0o644,
    ),
    "server.yaml",
  );

  const tlsMade = await ensureClusterTls(dataDir, tlsNames(opts.tlsNames ?? ""));
  if (tlsMade.length > 0) created.push("tls/ (cluster CA and control plane certificate)");
  else existing.push("tls/");

  const dbExisted = await exists(`${dataDir}/llmgw.db`);
  const store = await openStore(`${dataDir}/llmgw.db`);
  note(!dbExisted, "llmgw.db");
  let adminPassword: string | undefined;
  try {
    const admins = await store.db.select().from(users);
    if (admins.length === 0) {
      adminPassword = generatePassword();
      // Kept before the administrator is stored: a run that fails later cannot lose it.
      await keepFirstPassword(dataDir, adminPassword);
      const row = {
        id: ulid(),
        username: adminUsername,
        passwordHash: await hashPassword(adminPassword),
        role: "administrator" as const,
        createdAt: opts.clock.now(),
      };
      await store.write((tx) => tx.insert(users).values(row));
    }
    note(adminPassword !== undefined, `administrator '${adminUsername}'`);

    // Limits bind from the first day: without defaults a key made without limits is unmetered.
    const defaults = await store.db.select().from(limits);
    if (defaults.length === 0) {
      await store.write((tx) =>
        tx.insert(limits).values({
          scopeKind: "global",
          scopeId: "global",
          ...defaultLimits,
          budgetDayMicros: null,
          budgetMonthMicros: null,
          budgetDayTokens: null,
          budgetMonthTokens: null,
          models: null,
          maxKeyTtlMs: null,
          maxParallel: null,
          weight: null,
          updatedAt: opts.clock.now(),
        })
      );
    }
    note(
      defaults.length === 0,
      `default limits (${defaultLimits.rpm} rpm, ${defaultLimits.tpm} tpm per key)`,
    );

    const tokenPath = `${dataDir}/admin.token`;
    if (await exists(tokenPath)) {
      existing.push("admin.token");
    } else {
      const token = await new AdminTokens({ store, clock: opts.clock }).create("init");
      await writeIfAbsent(tokenPath, () => token + "\n");
      created.push("admin.token");
    }
  } finally {
    store.close();
  }
  return {
    dataDir,
    created,
    existing,
    ...(adminPassword ? { adminPassword, adminPasswordFile: firstPasswordPath(dataDir) } : {}),
  };
}

/** Writes a new file with `mode` (default 0600), never replacing one that exists. */
export async function writeIfAbsent(
  path: string,
  content: () => string,
  mode = 0o600,
): Promise<boolean> {
  try {
    const file = await Deno.open(path, { createNew: true, write: true, mode });
    try {
      await file.write(new TextEncoder().encode(content()));
    } finally {
      file.close();
    }
    // The umask may have narrowed the mode; secrets must be exactly 0600 either way.
    await Deno.chmod(path, mode);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) return false;
    throw e;
  }
}
