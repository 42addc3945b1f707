/**
 * Each replica's engine key, derived from the cluster secret and the replica's identity rather than
 * stored: the control plane can compute it again after a restart, and the store holds no engine
 * secret. The router sends it to the engine; the agent gives it to the engine's environment.
 */
import { createHmac } from "node:crypto";

export function replicaKey(clusterSecret: string, nodeId: string, replicaId: string): string {
  const mac = createHmac("sha256", clusterSecret).update(`replica\0${nodeId}\0${replicaId}`);
  return "llmgw_rep_" + mac.digest("base64url");
}
