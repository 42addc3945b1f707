/**
 * `llmgw mirror`: the control plane's weights mirror through the admin API, ctl-style (it finds
 * the server and admin token the way `llmgw ctl` does).
 */
import { HTTPError, NetworkError } from "ky";
import type { Command } from "../../core/command.ts";
import { UsageError } from "../../core/command.ts";
import { locationSettings } from "../wiring/config.ts";
import { col, connect, ctlSettings, printList as print } from "./ctl/client.ts";
import { Progress } from "./progress.ts";
import { didYouMean } from "../../core/suggest.ts";
import { parseFlags } from "../../core/flags.ts";
import { formatBytes } from "../../core/weights/disk.ts";

const help = `Usage: llmgw mirror <verb> [options] [--json]

  add SOURCE [--sha256 HEX] [--allow-pickle] [--wait]
        Pin SOURCE and fetch it into the mirror, checked against its published sha256.
        SOURCE: hf:org/repo (safetensors set or GGUF split), hf:org/repo/path/file,
        or an http(s) URL (then --sha256 is required). --wait follows it to the end.
  list                 Mirrored versions, their state and progress
  remove ID            Delete a version's files (files another version holds stay)

Nodes try the mirror before the hub: they read /cluster/v1/mirror/<org>/<repo>/<commit>/<path>
on the cluster listener with their own credential. With the admin token the same files are at
/mirror/<org>/<repo>/<commit>/<path> on the main listener. Both take Range.
Options: --data DIR, --url URL, --token TOKEN (env LLMGW_ADMIN_TOKEN), --json`;

interface Version {
  id: string;
  source: string;
  versionDir: string;
  status: string;
  bytesTotal: number | null;
  error: string | null;
  progress: { phase: string; bytesDone: number; bytesTotal: number | null } | null;
}

/** mirror's verbs, each with the flags it reads (for `llmgw completion` and suggestions). */
export const mirrorVerbs: Record<string, readonly string[]> = {
  add: ["sha256", "allow-pickle", "wait"],
  list: [],
  remove: [],
};

export const mirrorCommand: Command = {
  name: "mirror",
  summary: "Keep model weights on the control plane for nodes without the internet",
  async run(argv) {
    const { values, positionals } = parseFlags(argv, [locationSettings, ctlSettings], {
      json: { type: "boolean" },
      sha256: { type: "string" },
      "allow-pickle": { type: "boolean" },
      wait: { type: "boolean" },
    });
    if (values.help || positionals.length === 0) {
      console.log(help);
      return values.help ? 0 : 2;
    }
    const [verb, arg] = positionals;
    const json = values.json === true;
    const api = await connect(values);
    try {
      switch (verb) {
        case "add": {
          if (!arg) throw new UsageError("mirror add needs a SOURCE");
          const body: Record<string, unknown> = { source: arg };
          if (typeof values.sha256 === "string") body.sha256 = values.sha256;
          if (values["allow-pickle"] === true) body.allow_pickle = true;
          let v = await api.post("mirror", { json: body }).json<Version>();
          if (!json) console.log(`Mirror version ${v.id}: ${v.versionDir} (${v.status})`);
          if (values.wait === true) {
            v = await follow(v, (id) => api.get(`mirror/${id}`).json<Version>(), json);
            if (!json) console.log(describe(v));
          }
          if (json) console.log(JSON.stringify(v, null, 2));
          if (v.status === "failed") {
            console.error(`llmgw mirror: ${v.error}`);
            return 1;
          }
          return 0;
        }
        case "list": {
          const res = await api.get("mirror").json<{ data: Version[] }>();
          if (json) return print(true, res, []);
          return print(false, {
            data: res.data.map((v) => ({ ...v, state: describe(v) })),
          }, [col("id", "ID"), col("versionDir", "Version"), col("state", "State")]);
        }
        case "remove": {
          if (!arg) throw new UsageError("mirror remove needs the version's ID");
          const v = await api.delete(`mirror/${encodeURIComponent(arg)}`).json<Version>();
          if (json) console.log(JSON.stringify(v, null, 2));
          else console.log(`Removed mirror version ${v.id} (${v.versionDir})`);
          return 0;
        }
        default:
          throw new UsageError(
            `unknown verb 'mirror ${verb}'${
              didYouMean(verb ?? "", Object.keys(mirrorVerbs), (v) => `mirror ${v}`)
            } (llmgw mirror --help)`,
          );
      }
    } catch (e) {
      if (e instanceof HTTPError) {
        const body = e.data as { error?: { message?: string } } | undefined;
        console.error(`llmgw mirror: ${body?.error?.message ?? `HTTP ${e.response.status}`}`);
        return 1;
      }
      if (e instanceof NetworkError) {
        console.error(`llmgw mirror: cannot reach the control plane at ${e.request.url}`);
        return 1;
      }
      throw e;
    }
  },
};

/**
 * Polls a fetching version until it ends; on a terminal a progress line follows it (twice a
 * second), elsewhere nothing is drawn and it polls as before, every 2 s.
 */
async function follow(
  first: Version,
  get: (id: string) => Promise<Version>,
  json: boolean,
): Promise<Version> {
  const progress = new Progress();
  const drawing = progress.drawing && !json;
  let v = first;
  while (v.status === "fetching") {
    await new Promise((r) => setTimeout(r, drawing ? 500 : 2_000));
    v = await get(v.id);
    if (!drawing) continue;
    const p = v.progress;
    if (p) progress.bytes(`${p.phase} ${v.versionDir}`, p.bytesDone, p.bytesTotal ?? undefined);
    else progress.waiting(`waiting for ${v.versionDir} to start`);
  }
  progress.end();
  return v;
}

/** "fetching 1.2 GiB of 4.0 GiB (30%)", "checking …", "complete", "failed: why". */
export function describe(v: Version): string {
  if (v.status === "failed") return `failed: ${v.error}`;
  if (v.status === "complete") return "complete";
  const p = v.progress;
  if (!p) return "fetching";
  const of = p.bytesTotal === null
    ? ""
    : ` of ${formatBytes(p.bytesTotal)} (${
      p.bytesTotal === 0 ? 100 : Math.floor((p.bytesDone / p.bytesTotal) * 100)
    }%)`;
  return `${p.phase} ${formatBytes(p.bytesDone)}${of}`;
}
