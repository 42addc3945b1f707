/**
 * One mirrored file for a request whose path is `<prefix><org>/<repo>/<commit>/<path>`, with
 * Range. The main listener (an admin token) and the cluster listener (a node's credential) both
 * answer through this, so the checks on the path exist once; who may ask is the route's own check.
 */
import { AppError } from "../../core/errors.ts";
import type { MirrorService } from "./mirror.ts";
import { serveFile } from "./serve_file.ts";

export async function serveMirrorFile(
  mirror: MirrorService,
  req: Request,
  prefix: string,
): Promise<Response> {
  // The raw (still percent-encoded) path, decoded once, here.
  const rawPath = new URL(req.url).pathname.slice(prefix.length);
  let rel: string;
  try {
    rel = decodeURIComponent(rawPath);
  } catch {
    throw new AppError("not_found", { path: `${prefix}${rawPath}` });
  }
  // Only names a complete version lists are served, so `..` or a stray file never is.
  const file = rel.split("/").some((s) => s === ".." || s === "." || s === "")
    ? null
    : await mirror.fileFor(rel);
  if (!file) throw new AppError("not_found", { path: `${prefix}${rel}` });
  return await serveFile(req, file);
}
