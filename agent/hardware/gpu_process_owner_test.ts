/** Attribution against a real process tree: leader, group member, and a child that left the group. */
import { assertEquals } from "../../tests/assert.ts";
import type { GpuReport } from "../../core/protocol/host_report.ts";
import { attributeGpuProcesses } from "./gpu_process_owner.ts";
import { terminateGroup } from "../terminate_group.ts";
import { findStrays } from "../proc_tree.ts";

Deno.test("GPU processes are the replica's by pid, by process group and by descent", async () => {
  // Like an engine: its own session (detached = setsid), one worker in its group, and one worker
  // that called setsid itself (the case that pid-or-group alone got wrong).
  const child = new Deno.Command("sh", {
    args: ["-c", "sleep 30 & echo $!; setsid sleep 30 & echo $!; wait"],
    detached: true,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const other = new Deno.Command("sleep", { args: ["30"], stdout: "null" }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (text.trim().split("\n").length < 2) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const [member, escaped] = text.trim().split("\n").map(Number);
    // `$!` is known before the child has called setsid: wait until it really left the session.
    const deadline = Date.now() + 3_000;
    while (Date.now() < deadline && sessionOf(escaped!) === child.pid) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const report: GpuReport = {
      source: "nvml",
      gpus: [{
        index: 0,
        uuid: "GPU-1",
        name: "Fake",
        processes: [
          { pid: child.pid, usedMemoryBytes: 1 },
          { pid: member!, usedMemoryBytes: 2 },
          { pid: escaped!, usedMemoryBytes: 3, replicaId: "stale" },
          { pid: other.pid, usedMemoryBytes: 4 },
          { pid: 999_999_999 },
        ],
      }],
    };
    const out = attributeGpuProcesses(report, [
      { replicaId: "s-other", pid: 123_456_789 },
      { replicaId: "s-1", pid: child.pid },
    ]);
    assertEquals(out.gpus[0]?.processes, [
      { pid: child.pid, usedMemoryBytes: 1, replicaId: "s-1" },
      { pid: member!, usedMemoryBytes: 2, replicaId: "s-1" },
      { pid: escaped!, usedMemoryBytes: 3, replicaId: "s-1" },
      { pid: other.pid, usedMemoryBytes: 4 },
      { pid: 999_999_999 },
    ]);
    assertEquals(report.gpus[0]?.processes[2]?.replicaId, "stale", "the input is not changed");
    assertEquals(findStrays(child.pid), [escaped!]);
    await reader.cancel();
  } finally {
    await terminateGroup(child.pid, 1000);
    other.kill();
    await Promise.all([child.status, other.status]);
  }
});

function sessionOf(pid: number): number | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);
  } catch {
    return undefined;
  }
}
