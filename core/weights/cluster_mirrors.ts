/**
 * A node's mirrors: the control planes it already dials, whose cluster listener serves mirrored
 * files at `/cluster/v1/mirror/<versionDir>/<path>` to a node credential over the cluster's TLS.
 * The fetcher appends `/mirror/…` to each base.
 */
export function clusterMirrors(controlUrls: string[]): string[] {
  return controlUrls.map((u) => `${u.replace(/\/+$/, "")}/cluster/v1`);
}
