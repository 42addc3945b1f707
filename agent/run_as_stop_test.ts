/**
 * Engines run as another user can be stopped by the agent as it is deployed: the agent's stop
 * code runs as an unprivileged user holding exactly the capabilities deploy/systemd's
 * llmgw-agent.service gives it (ambient and bounding sets, no new privileges), and starts the
 * engine as a second user through engines.run_as, with the group install.sh gives such a user.
 * With CAP_KILL missing (the unit as it was), the stop is a reported failure naming CAP_KILL,
 * never "already gone". Needs root (to create the users) and setpriv; elsewhere it is ignored.
 */
import { assert, assertEquals } from "../tests/assert.ts";
import { which } from "../core/which.ts";
import { isGone, readStat } from "./proc_tree.ts";

const root = Deno.uid() === 0;
const tools = root && (await which("setpriv")) && (await which("useradd")) &&
  (await which("userdel"));
/** The users it makes run this checkout's deno: every folder above it must let others in. */
const reachable = dirsAbove(Deno.execPath()).every((d) => (Deno.statSync(d).mode ?? 0) & 0o001);
const ignore = !tools || !reachable;
/** Deno's `ignore` takes no reason, so it goes in the name. */
const why = !tools
  ? " [ignored: needs root, setpriv and useradd, to create an agent user and an engine user]"
  : !reachable
  ? ` [ignored: other users cannot reach ${Deno.execPath()} (a folder above it is not o+x)]`
  : "";

function dirsAbove(path: string): string[] {
  const parts = path.split("/").slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join("/") || "/");
}

const unitPath = new URL("../deploy/systemd/llmgw-agent.service", import.meta.url).pathname;
const harness = new URL("./testdata/stop_as_user.ts", import.meta.url).pathname;

/** `CAP_KILL CAP_SETUID` → `+kill,+setuid`, as setpriv takes them. */
function capList(names: string[]): string {
  return names.map((n) => `+${n.replace(/^CAP_/, "").toLowerCase()}`).join(",");
}

/** The unit's capability lines, and whether it sets NoNewPrivileges. */
export async function unitCapabilities(): Promise<
  { ambient: string[]; bounding: string[]; noNewPrivs: boolean }
> {
  const text = await Deno.readTextFile(unitPath);
  const value = (key: string) =>
    new RegExp(`^${key}=(.*)$`, "m").exec(text)?.[1]?.trim().split(/\s+/).filter(Boolean) ?? [];
  return {
    ambient: value("AmbientCapabilities"),
    bounding: value("CapabilityBoundingSet"),
    noNewPrivs: value("NoNewPrivileges")[0] === "true",
  };
}

async function sh(cmd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")}: ${text}`);
  return text;
}

/** Two throwaway users: the agent's, and the engines' (own group, plus the agent's group). */
async function withUsers(
  fn: (agent: string, engine: string, dir: string) => Promise<void>,
): Promise<void> {
  const tag = crypto.randomUUID().slice(0, 6);
  const agent = `llmgwt-a${tag}`;
  const engine = `llmgwt-e${tag}`;
  const dir = await Deno.makeTempDir({ prefix: "llmgw-runas-" });
  try {
    await sh("useradd", ["--system", "--user-group", "--no-create-home", agent]);
    await sh("useradd", [
      "--system",
      "--user-group",
      "--groups",
      agent,
      "--no-create-home",
      engine,
    ]);
    await Deno.chmod(dir, 0o770);
    await sh("chown", [`${agent}:${agent}`, dir]);
    await fn(agent, engine, dir);
  } finally {
    // userdel removes the user but not always the group useradd made for it.
    for (const [cmd, name] of [["userdel", engine], ["userdel", agent]]) {
      await sh(cmd!, [name!]).catch(() => {});
    }
    for (const name of [engine, agent]) await sh("groupdel", [name]).catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

interface Outcome {
  problems: string[];
  pid: number;
  /** The engine's real uid as /proc says, read by the harness while it ran. */
  engineUid: string;
  result: { stopped?: boolean; error?: string; state?: string; ms: number };
}

/** Runs the stop harness as `agent` with the given capabilities; bounded. */
async function runHarness(
  agent: string,
  engine: string,
  dir: string,
  caps: { ambient: string[]; bounding: string[]; noNewPrivs: boolean },
): Promise<Outcome> {
  const args = [
    `--reuid=${agent}`,
    `--regid=${agent}`,
    "--init-groups",
    `--inh-caps=-all${caps.ambient.length ? "," + capList(caps.ambient) : ""}`,
    ...(caps.ambient.length ? [`--ambient-caps=${capList(caps.ambient)}`] : []),
    `--bounding-set=-all${caps.bounding.length ? "," + capList(caps.bounding) : ""}`,
    ...(caps.noNewPrivs ? ["--no-new-privs"] : []),
    "--",
    "sh",
    "-c",
    // The unit's UMask: engines (the agent's group) reach their replica directories.
    'umask 0007; exec "$@"',
    "sh",
    Deno.execPath(),
    "run",
    "-A",
    harness,
    `${dir}/engines`,
    engine,
  ];
  const child = new Deno.Command("setpriv", {
    args,
    env: {
      PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      DENO_DIR: `${dir}/deno`,
      HOME: dir,
      NO_COLOR: "1",
      DENO_NO_UPDATE_CHECK: "1",
    },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  const lines: Record<string, unknown>[] = [];
  let engineUid = "";
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += value;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      lines.push(line);
      if (typeof line.started === "number") engineUid = String(line.uid ?? "");
    }
  }
  const err = await new Response(child.stderr).text();
  clearTimeout(timer);
  await child.status;
  const pick = (k: string) => lines.find((l) => k in l);
  const pid = pick("started")?.started as number | undefined;
  assert(pid, `the harness started the engine: ${JSON.stringify(lines)} ${err}`);
  const result = (pick("stopped") ?? pick("error")) as Outcome["result"] | undefined;
  assert(result, `the harness said how the stop went: ${JSON.stringify(lines)} ${err}`);
  return { problems: pick("problems")!.problems as string[], pid, engineUid, result };
}

async function uidOf(user: string): Promise<string> {
  return (await sh("id", ["-u", user])).trim();
}

Deno.test({
  name:
    "run_as: the agent, with exactly its unit's capabilities, stops an engine run as another user" +
    why,
  ignore,
  fn: async () => {
    const caps = await unitCapabilities();
    await withUsers(async (agent, engine, dir) => {
      const o = await runHarness(agent, engine, dir, caps);
      if (!isGone(o.pid)) {
        // The stop failed: the engine must not outlive the test (asserted below).
        Deno.kill(-o.pid, "SIGKILL");
        for (let i = 0; i < 100 && !isGone(o.pid); i++) await new Promise((r) => setTimeout(r, 20));
        assert(false, `the engine ${o.pid} outlived the stop: ${JSON.stringify(o.result)}`);
      }
      assertEquals(o.engineUid, await uidOf(engine), "the engine ran as the engine user");
      assertEquals(o.problems, [], "doctor's check finds nothing missing");
      assertEquals(o.result.error, undefined, `the stop worked: ${o.result.error}`);
      assertEquals(o.result.stopped, true);
      assert(isGone(o.pid), `the engine ${o.pid} is gone`);
    });
  },
});

Deno.test({
  name: "run_as: without CAP_KILL a stop is a reported failure naming it, not 'already gone'" + why,
  ignore,
  fn: async () => {
    const caps = await unitCapabilities();
    const without = (l: string[]) => l.filter((c) => c !== "CAP_KILL");
    await withUsers(async (agent, engine, dir) => {
      const o = await runHarness(agent, engine, dir, {
        ...caps,
        ambient: without(caps.ambient),
      });
      try {
        assert(o.problems.some((p) => p.includes("CAP_KILL")), o.problems.join("; "));
        assertEquals(o.result.stopped, undefined, "the stop did not count as done");
        assert(o.result.error?.includes("EPERM"), o.result.error);
        assert(o.result.error?.includes("CAP_KILL"), o.result.error);
        assertEquals(o.result.state, "failed");
        assert(o.result.ms < 10_000, `said so at once (${o.result.ms} ms), no hang`);
        assert(!isGone(o.pid), "the engine really still runs");
      } finally {
        if (readStat(o.pid)) Deno.kill(-o.pid, "SIGKILL");
        // Gone before its user is removed (userdel refuses a user with a process).
        for (let i = 0; i < 100 && !isGone(o.pid); i++) await new Promise((r) => setTimeout(r, 20));
      }
    });
  },
});
