/**
 * `resources.memory_mb`: a node may offer replicas less memory than it has (a machine shared with
 * other work, or two agents on one machine in tests, so a small model must be split).
 */
import type { HostInfo } from "../../core/protocol/host_report.ts";

/** The memory a node offers, as placement counts it: all it has, or `resources.memory_mb`. */
export function offered(host: HostInfo, capMb: number): HostInfo {
  if (capMb <= 0) return host;
  const cap = capMb * 1024 ** 2;
  return {
    ...host,
    ramTotalBytes: Math.min(host.ramTotalBytes ?? cap, cap),
    ...(host.ramAvailableBytes !== undefined
      ? { ramAvailableBytes: Math.min(host.ramAvailableBytes, cap) }
      : {}),
  };
}
