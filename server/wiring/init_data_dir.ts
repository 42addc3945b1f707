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
import { serverSettings } from "./config.ts";
import { tlsNames } from "../tls/cluster_tls.ts";
import { ensureClusterTls } from "../tls/cluster_tls.ts";
import { adminUsername, firstPasswordPath, keepFirstPassword } from "../setup/first_password.ts";
import { writeIfAbsent } from "../setup/write_if_absent.ts";

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

/** Per-key defaults written at init; `ctl limits set --global` changes them. */
export const defaultLimits = { rpm: 60, tpm: 200_000 };

export async function initDataDir(
  dataDir: string,
  /** `storeUrl`: a PostgreSQL store to seed instead of the data directory's SQLite file. */
  opts: { clock: Clock; listen?: string; tlsNames?: string; storeUrl?: string },
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

  const dbExisted = opts.storeUrl ? false : await exists(`${dataDir}/llmgw.db`);
  const store = await openStore(opts.storeUrl || `${dataDir}/llmgw.db`);
  if (!opts.storeUrl) note(!dbExisted, "llmgw.db");
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
    await store.close();
  }
  return {
    dataDir,
    created,
    existing,
    ...(adminPassword ? { adminPassword, adminPasswordFile: firstPasswordPath(dataDir) } : {}),
  };
}
