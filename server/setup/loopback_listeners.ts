/**
 * Flags that put every listener of `llmgw server` or `llmgw up` on a free loopback port: for a
 * second appliance on a box (the overhead bench, tests) that must not take the first one's ports.
 */
export const loopbackListeners: readonly string[] = [
  "--listen",
  "127.0.0.1:0",
  "--cluster-listen",
  "127.0.0.1:0",
  "--metrics-listen",
  "127.0.0.1:0",
];
