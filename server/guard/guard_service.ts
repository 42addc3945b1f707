/**
 * One call to an outside guard service: the text put into the body template, headers read from
 * their files on this call (a rotated key needs no restart), the verdict read at a dotted path.
 * Anything but a clear answer at that path (an error status, a timeout, a body that is not JSON,
 * a `null` or missing value) is silence, never "safe": the policy's `fail` decides what it means.
 */
import { defaultServiceBody, defaultServiceTimeoutMs, type ServiceRule } from "./service_rule.ts";

export type ServiceAnswer =
  | { kind: "safe" }
  | { kind: "unsafe"; reason: string | undefined }
  | { kind: "silent"; why: string };

/** The longest reason kept: a service's reason is a category, not a copy of the text. */
const maxReason = 200;

export async function askService(rule: ServiceRule, text: string): Promise<ServiceAnswer> {
  let headers: Record<string, string>;
  try {
    headers = await readHeaders(rule.header_files ?? {});
  } catch {
    return { kind: "silent", why: "a header file could not be read" };
  }
  const template = rule.body ?? defaultServiceBody;
  const body = template.replaceAll("{{text}}", () => JSON.stringify(text));
  let answer: unknown;
  try {
    const res = await fetch(rule.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
      signal: AbortSignal.timeout(rule.timeout_ms ?? defaultServiceTimeoutMs),
    });
    if (!res.ok) {
      await res.body?.cancel();
      return { kind: "silent", why: `status ${res.status}` };
    }
    answer = await res.json();
  } catch (e) {
    const timedOut = e instanceof DOMException && e.name === "TimeoutError";
    return { kind: "silent", why: timedOut ? "timed out" : "no answer" };
  }
  const flag = valueAt(answer, rule.blocked);
  const verdict = unsafe(flag);
  if (verdict === undefined) return { kind: "silent", why: "no verdict" };
  if (!verdict) return { kind: "safe" };
  const reason = rule.reason ? valueAt(answer, rule.reason) : undefined;
  return {
    kind: "unsafe",
    reason: reason === undefined || reason === null
      ? undefined
      : String(typeof reason === "string" ? reason : JSON.stringify(reason)).slice(0, maxReason),
  };
}

async function readHeaders(files: Record<string, string>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, path] of Object.entries(files)) {
    out[name] = (await Deno.readTextFile(path)).trim();
  }
  return out;
}

/** `results.0.flagged`: object keys, and numbers for list items. */
export function valueAt(doc: unknown, path: string): unknown {
  let at = doc;
  for (const step of path.split(".")) {
    if (Array.isArray(at) && /^\d+$/.test(step)) at = at[Number(step)];
    else if (typeof at === "object" && at !== null && !Array.isArray(at)) {
      at = (at as Record<string, unknown>)[step];
    } else return undefined;
  }
  return at;
}

/**
 * True, a number above 0, a non-empty list, a string other than "false" are unsafe; `null`, a
 * missing value or an object are no verdict at all (undefined).
 */
function unsafe(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "string") return v !== "" && v.toLowerCase() !== "false";
  return undefined;
}
