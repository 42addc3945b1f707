/**
 * The name (CN) a node's cluster certificate carries: how a replica set's head and workers know
 * each other over the tunnel (agent/tunnel), whatever their addresses.
 */
export function nodeCommonName(node: string): string {
  // Characters a distinguished name would read as syntax are replaced, on both sides alike.
  return `llmgw node ${node.replace(/[,+="\\<>;#/]/g, "_")}`;
}
