/**
 * The flag gate: a model's extra arguments come from the catalog, which operators edit, so a flag
 * that moves the engine's address, takes a credential, reads or writes files outside the model, or
 * loads code is refused before anything is started. The value after a flag is not looked at; the
 * flag alone decides.
 */
import { LaunchPlanError, UnsafeFlagError } from "./launch_plan_error.ts";

export interface Refusal {
  readonly why: string;
  /** The catalog may lift this refusal by naming the flag in `allowFlags`. */
  readonly allowable?: boolean;
}

export interface FlagRules {
  readonly engine: string;
  readonly refused: Readonly<Record<string, Refusal>>;
  /**
   * argparse engines (vLLM) accept any unambiguous beginning of a long flag, so `--trust-remote` is
   * `--trust-remote-code`; for them a beginning of a refused flag is refused too. llama.cpp matches
   * whole flags only, so its `--chat-template` is not `--chat-template-file`.
   */
  readonly abbreviations: boolean;
  /** Families of flags too many to list (llama.cpp's `--*-default` presets, which download). */
  readonly refusedPatterns?: readonly { readonly pattern: RegExp; readonly why: string }[];
  /**
   * Flags only later builds have, by the first build number known to have them (llama.cpp's
   * bNNNN): an older build refuses an unknown flag at start, after the model was placed.
   */
  readonly since?: Readonly<Record<string, number>>;
}

/** Reasons that more than one engine's rules give, worded once. */
export const commonRefusals = {
  setByAgent: { why: "set by the agent" },
  credential: { why: "a credential" },
  readsFile: { why: "reads a file outside the model's weights" },
  writesFile: { why: "writes files outside the engine's directory" },
} as const satisfies Record<string, Refusal>;

/** Refused for every engine: the agent sets these itself. */
export const sharedRefusals: Readonly<Record<string, Refusal>> = {
  "--api-key": { why: "a credential; the agent gives the engine its key in the environment" },
  "--api-key-file": { why: "a credential; the agent gives the engine its key in the environment" },
  "--host": commonRefusals.setByAgent,
  "--port": commonRefusals.setByAgent,
};

/** Long flags are compared with underscores as hyphens, since engines accept both spellings. */
function normalise(arg: string): string {
  const flag = arg.split("=", 1)[0] ?? arg;
  return flag.startsWith("--") ? "--" + flag.slice(2).replaceAll("_", "-") : flag;
}

/** The refused flag `flag` stands for, if any: itself, or what it abbreviates. */
function match(
  flag: string,
  refused: Readonly<Record<string, Refusal>>,
  abbreviations: boolean,
): [string, Refusal] | undefined {
  const exact = refused[flag];
  if (exact) return [flag, exact];
  if (!abbreviations || !flag.startsWith("--") || flag.length < 4) return undefined;
  for (const [name, refusal] of Object.entries(refused)) {
    if (name.startsWith(flag)) return [name, refusal];
  }
  return undefined;
}

/** Throws `UnsafeFlagError` naming the first refused flag in `args`. */
export function checkFlags(
  rules: FlagRules,
  args: readonly string[],
  allowFlags: readonly string[] = [],
): void {
  const allowed = new Set(allowFlags.map(normalise));
  for (const arg of args) {
    // Only flags are judged; "-1" and the like are values.
    if (!arg.startsWith("-") || /^-\d/.test(arg)) continue;
    const flag = normalise(arg);
    const byPattern = rules.refusedPatterns?.find((r) => r.pattern.test(flag));
    if (byPattern) {
      throw new UnsafeFlagError(rules.engine, arg.split("=", 1)[0] ?? arg, byPattern.why);
    }
    for (const list of [sharedRefusals, rules.refused]) {
      const hit = match(flag, list, rules.abbreviations);
      if (!hit) continue;
      const [name, refusal] = hit;
      if (refusal.allowable && allowed.has(name)) continue;
      const why = name === flag ? refusal.why : `it abbreviates ${name}, ${refusal.why}`;
      throw new UnsafeFlagError(rules.engine, arg.split("=", 1)[0] ?? arg, why);
    }
  }
}

/**
 * Throws `LaunchPlanError` for a flag in `args` that build `build` predates. An unknown build
 * (one compiled without its number) is not judged: the operator named the flag for it.
 */
export function checkFlagsInBuild(
  rules: FlagRules,
  args: readonly string[],
  build: number | undefined,
): void {
  if (build === undefined || !rules.since) return;
  for (const arg of args) {
    if (!arg.startsWith("-")) continue;
    const flag = normalise(arg);
    const since = rules.since[flag];
    if (since !== undefined && build < since) {
      throw new LaunchPlanError(
        rules.engine,
        `${flag} needs build b${since} or later; this is b${build}`,
      );
    }
  }
}

/** Whether build `build` has `flag` (false when the build is unknown or the flag is listed later). */
export function buildHasFlag(rules: FlagRules, flag: string, build: number | undefined): boolean {
  const since = rules.since?.[flag];
  if (since === undefined) return true;
  return build !== undefined && build >= since;
}
