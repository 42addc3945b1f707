/**
 * `llmgw join`: trade a join code for this node's credential. The cluster CA is found by the
 * code's fingerprint (fetch_ca.ts), then the code's secret goes to the control plane in a request
 * that trusts that CA only. What comes back is kept in the node's data directory: the credential
 * (0600), the CA, and agent.yaml naming the control planes.
 */
import { defaultYaml } from "../../core/settings.ts";
import { decodeJoinCode } from "../../core/protocol/join_code.ts";
import { VERSION } from "../../core/version.ts";
import { agentSettings, checkControlUrl } from "../agent_config.ts";
import { fetchClusterCa } from "./fetch_ca.ts";
import { caPath, credentialPath } from "./node_files.ts";

export class JoinError extends Error {
  override name = "JoinError";
}

export interface Joined {
  nodeId: string;
  name: string;
  urls: string[];
}

export async function joinCluster(
  opts: {
    code: string;
    controlUrl?: string;
    dataDir: string;
    name: string;
    /** Agent settings given to `join` (engine ports, …), kept in agent.yaml for `llmgw agent`. */
    settings?: Record<string, unknown>;
  },
): Promise<Joined> {
  let code;
  try {
    code = decodeJoinCode(opts.code);
  } catch (e) {
    throw new JoinError((e as Error).message);
  }
  const urls = opts.controlUrl ? [opts.controlUrl.replace(/\/$/, "")] : code.urls;
  for (const u of urls) {
    const url = checkUrl(u);
    if (url.protocol !== "https:") {
      throw new JoinError(`joining needs the cluster's https URL, not ${u}`);
    }
  }
  try {
    const existing = (await Deno.readTextFile(credentialPath(opts.dataDir))).trim();
    if (existing) {
      throw new JoinError(
        `${opts.dataDir} already holds a node credential: run 'llmgw agent --data ${opts.dataDir}', ` +
          `or join with another --data`,
      );
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }

  const failures: string[] = [];
  for (const u of urls) {
    let caPem: string;
    try {
      caPem = await fetchClusterCa(new URL(u), code.ca);
    } catch (e) {
      failures.push(`${u}: ${(e as Error).message}`);
      continue;
    }
    const client = Deno.createHttpClient({ caCerts: [caPem] });
    let res: Response;
    try {
      res = await fetch(`${u}/cluster/v1/join`, {
        method: "POST",
        client,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ secret: code.secret, name: opts.name, version: VERSION }),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (e) {
      client.close();
      failures.push(`${u}: ${(e as Error).message}`);
      continue;
    }
    client.close();
    const body = await res.json().catch(() => ({})) as {
      nodeId?: string;
      name?: string;
      credential?: string;
      error?: { message?: string };
    };
    if (!res.ok || !body.credential || !body.nodeId) {
      // A refused code is refused everywhere: no point asking the next control plane.
      throw new JoinError(body.error?.message ?? `the control plane answered HTTP ${res.status}`);
    }
    await Deno.mkdir(opts.dataDir, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(caPath(opts.dataDir), caPem, { mode: 0o644 });
    await Deno.writeTextFile(credentialPath(opts.dataDir), body.credential + "\n", { mode: 0o600 });
    await Deno.chmod(credentialPath(opts.dataDir), 0o600);
    // The name the control plane gave (distinct from its other nodes'), which the agent reports.
    const name = body.name ?? opts.name;
    await writeAgentYaml(opts.dataDir, {
      ...opts.settings,
      controlUrls: urls.join(","),
      name,
    });
    return { nodeId: body.nodeId, name, urls };
  }
  throw new JoinError(`could not reach the control plane:\n  ${failures.join("\n  ")}`);
}

function checkUrl(u: string): URL {
  try {
    return checkControlUrl(u);
  } catch (e) {
    throw new JoinError((e as Error).message);
  }
}

/** Writes agent.yaml unless one exists; an operator's own file is never replaced. */
async function writeAgentYaml(dataDir: string, values: Record<string, unknown>): Promise<void> {
  const text =
    "# llmgw agent settings, written by `llmgw join`. Each one can also be given as a\n" +
    "# flag or env var; `llmgw agent --help` lists them.\n" + defaultYaml(agentSettings, values);
  try {
    await Deno.writeTextFile(`${dataDir}/agent.yaml`, text, { createNew: true, mode: 0o644 });
  } catch (e) {
    if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
  }
}
