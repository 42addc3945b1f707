import { parseArgs } from "node:util";
import { systemClock } from "../../core/clock.ts";
import { type Command, UsageError } from "../../core/command.ts";
import { isPostgresUrl } from "../../db/store.ts";
import { resolveSettings, settingsHelp } from "../../core/settings.ts";
import { locationSettings } from "../wiring/config.ts";
import { initDataDir, type InitResult } from "../wiring/init_data_dir.ts";

export const initCommand: Command = {
  name: "init",
  summary: "Create the data directory",
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        data: { type: "string" },
        listen: { type: "string" },
        "store-url": { type: "string" },
        help: { type: "boolean" },
      },
    });
    if (values.help) {
      console.log(
        `Usage: llmgw init [--data DIR] [--listen HOST:PORT] [--store-url postgres://…]\n\n` +
          `Creates the store, cluster secret, first administrator (password printed, and kept in\n` +
          `DIR/initial-admin-password, mode 0600, until its first sign-in), admin token (mode 0600)\n` +
          `and server.yaml. Running it again changes nothing that exists.\n\n` +
          settingsHelp(locationSettings) +
          `\n  --listen                     Listen address written into a new server.yaml` +
          `\n  --store-url                  Seed this PostgreSQL store instead of DIR/llmgw.db` +
          ` (env LLMGW_STORE_URL; the password in PGPASSWORD)`,
      );
      return 0;
    }
    const { dataDir } = resolveSettings(locationSettings, {
      flags: values,
      env: Deno.env.toObject(),
    });
    const storeUrl = values["store-url"] ?? Deno.env.get("LLMGW_STORE_URL") ?? "";
    if (storeUrl && !isPostgresUrl(storeUrl)) {
      throw new UsageError("--store-url must be a postgres:// URL");
    }
    const result = await initDataDir(dataDir, {
      clock: systemClock,
      ...(values.listen ? { listen: values.listen } : {}),
      ...(storeUrl ? { storeUrl } : {}),
    });
    printInitResult(result);
    return 0;
  },
};

export function printInitResult(r: InitResult): void {
  if (r.created.length) console.log(`Created in ${r.dataDir}: ${r.created.join(", ")}`);
  if (r.existing.length) console.log(`Already present, left unchanged: ${r.existing.join(", ")}`);
  if (r.adminPassword) {
    console.log(
      `\nAdministrator: admin\nPassword:      ${r.adminPassword}\n` +
        `(stored only as a hash; kept in ${r.adminPasswordFile}, mode 0600, until admin first signs in)`,
    );
  }
  console.log(`Admin token:   ${r.dataDir}/admin.token (mode 0600)`);
}
