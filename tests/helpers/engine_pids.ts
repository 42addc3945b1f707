/** The engines a real `llmgw up` runs, seen from outside: their pids and whether they live. */

/** The engine pids the appliance's agent recorded (its replicas.json, wherever under the data). */
export async function recordedEnginePids(dir: string): Promise<number[]> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isFile && e.name === "replicas.json") {
      const file = JSON.parse(await Deno.readTextFile(path)) as { replicas?: { pid: number }[] };
      return (file.replicas ?? []).map((s) => s.pid);
    }
    if (e.isDirectory) {
      const found = await recordedEnginePids(path);
      if (found.length) return found;
    }
  }
  return [];
}

export const alive = (pid: number) => {
  try {
    return !Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]!.startsWith("Z");
  } catch {
    return false;
  }
};
