/**
 * The standard `process_*` series every Prometheus exporter offers (memory, CPU, start time, open
 * files), plus the JavaScript heap's share of the memory: what an operator needs to tell a leak in
 * the gateway from a busy one. Read at each scrape; none costs anything between scrapes.
 */
import { cpuUsage } from "node:process";
import type { Registry } from "../../core/metrics/registry.ts";

export function registerProcessMetrics(registry: Registry): void {
  const rss = registry.gauge("process_resident_memory_bytes", "Resident memory size in bytes");
  const cpu = registry.counter(
    "process_cpu_seconds_total",
    "User and system CPU time spent, in seconds",
  );
  const start = registry.gauge(
    "process_start_time_seconds",
    "Start time of the process since the Unix epoch, in seconds",
  );
  const fds = registry.gauge("process_open_fds", "Open file descriptors (Linux only)");
  const heapUsed = registry.gauge(
    "llmgw_js_heap_used_bytes",
    "JavaScript heap in use; resident memory beyond heap and external is the runtime's own",
  );
  const heapTotal = registry.gauge(
    "llmgw_js_heap_total_bytes",
    "JavaScript heap reserved by the engine",
  );
  const external = registry.gauge(
    "llmgw_js_external_memory_bytes",
    "Memory held by JavaScript objects outside the heap (buffers)",
  );
  start.set({}, Math.round(performance.timeOrigin / 1000));
  let cpuSeen = 0;
  registry.collect(async () => {
    const m = Deno.memoryUsage();
    rss.set({}, m.rss);
    heapUsed.set({}, m.heapUsed);
    heapTotal.set({}, m.heapTotal);
    external.set({}, m.external);
    const u = cpuUsage();
    const cpuS = (u.user + u.system) / 1e6;
    cpu.inc({}, cpuS - cpuSeen);
    cpuSeen = cpuS;
    if (Deno.build.os === "linux") {
      let n = 0;
      for await (const _ of Deno.readDir("/proc/self/fd")) n++;
      fds.set({}, n);
    }
  });
}
