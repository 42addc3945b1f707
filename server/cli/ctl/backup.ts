/** `ctl backup FILE`: a consistent copy of the store, taken while serving, written here. */
import { UsageError } from "../../../core/command.ts";
import type { Ctx, Noun } from "./client.ts";

async function writeBackup(ctx: Ctx): Promise<number> {
  const file = ctx.args[0];
  if (!file) throw new UsageError("backup needs a FILE to write");
  try {
    await Deno.lstat(file);
    throw new UsageError(`${file} exists; give a new file name`);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  const started = performance.now();
  const res = await ctx.api.post("backup", { timeout: false });
  const tmp = `${file}.partial`;
  const out = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
  try {
    await res.body!.pipeTo(out.writable);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
  const expected = Number(res.headers.get("content-length"));
  const size = (await Deno.stat(tmp)).size;
  if (expected && size !== expected) {
    await Deno.remove(tmp);
    throw new UsageError(`backup cut short (${size} of ${expected} bytes); nothing written`);
  }
  await Deno.rename(tmp, file);
  console.log(
    `Backup written to ${file} (${size} bytes, ${Math.round(performance.now() - started)} ms). ` +
      `Restore with: llmgw restore ${file} --data DIR (control plane stopped)`,
  );
  return 0;
}

export const backup: Noun = {
  name: "backup",
  verbs: {},
  bare: {
    help:
      `  backup FILE                                 A consistent copy of the store, taken while serving,
                                              written to FILE here (mode 0600); 'llmgw restore' puts it back`,
    run: writeBackup,
  },
};
