/**
 * Version, commit and build date. A compiled binary carries `core/build_info.json`, written by
 * deploy/compile.sh and embedded with `--include`; from a checkout there is no such file and the
 * commit and date are asked of git (when git and the repository are there). One code path for
 * both, and the repository never holds a generated file.
 */
import { VERSION } from "./version.ts";

export interface BuildInfo {
  version: string;
  /** Short commit hash; "unknown" when neither the build nor git says. */
  commit: string;
  /** ISO time of the build (compiled) or of the commit (from a checkout); "unknown" otherwise. */
  date: string;
  /** "compiled" or "source". */
  kind: "compiled" | "source";
}

export async function buildInfo(
  file: URL = new URL("./build_info.json", import.meta.url),
): Promise<BuildInfo> {
  try {
    const j = JSON.parse(await Deno.readTextFile(file));
    return {
      version: typeof j.version === "string" ? j.version : VERSION,
      commit: typeof j.commit === "string" && j.commit ? j.commit : "unknown",
      date: typeof j.date === "string" && j.date ? j.date : "unknown",
      kind: "compiled",
    };
  } catch {
    // No embedded file: a run from the checkout.
  }
  const repo = decodeURIComponent(new URL("..", file).pathname);
  const git = async (args: string[]) => {
    try {
      const out = await new Deno.Command("git", {
        args: ["-C", repo, ...args],
        stdout: "piped",
        stderr: "null",
      }).output();
      return out.success ? new TextDecoder().decode(out.stdout).trim() : "";
    } catch {
      return "";
    }
  };
  const commit = await git(["rev-parse", "--short=12", "HEAD"]);
  const dirty = commit && (await git(["status", "--porcelain", "--untracked-files=no"])) !== "";
  const date = commit ? await git(["log", "-1", "--format=%cI"]) : "";
  return {
    version: VERSION,
    commit: commit ? commit + (dirty ? "-dirty" : "") : "unknown",
    date: date || "unknown",
    kind: "source",
  };
}

export function formatBuildInfo(b: BuildInfo): string {
  return `llmgw ${b.version} (commit ${b.commit}, built ${b.date}, ${b.kind}; deno ${Deno.version.deno})`;
}
