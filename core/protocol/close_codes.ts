/**
 * WebSocket close codes on the control channel that tell the agent what to do next.
 *
 * `notLeader`: this control plane is a standby. Nodes keep their one channel to the leader, the
 * one control plane that places replicas and sends commands, so a standby never has to relay
 * them (no second path for a command, no control-plane-to-control-plane channel to secure); the
 * agent tries the next control plane it knows at once, without backing off.
 */
export const notLeaderCloseCode = 4409;
export const notLeaderReason = "not the leader";
