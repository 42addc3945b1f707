/**
 * What makes two requests the same question: the tenant (a project, or a key without one), the
 * model as it is now (its pinned weights, template and arguments), the guardrails that shaped
 * the answer, the path and shape (streamed or not), and every body field that changes the
 * answer. Fields that only name or label the caller (`user`, `metadata`, ids) are left out.
 */
import { createHash } from "node:crypto";
import type { ModelEntry } from "../router/catalog.ts";
import type { CompiledPolicy } from "../guard/compiled_policy.ts";
import { isRecord } from "../router/json_fields.ts";

/** Body fields that do not change the answer: who asks, labels, delivery options. */
const notTheQuestion = new Set([
  "user",
  "metadata",
  "store",
  "stream",
  "stream_options",
  "safety_identifier",
  "prompt_cache_key",
  "service_tier",
  "request_id",
]);

/** The parts of the key that are not the body. */
export interface KeyParts {
  /** `project:ID`, or `key:ID` for a key without a project: never shared between tenants. */
  tenant: string;
  path: string;
  stream: boolean;
  model: ModelEntry;
  policies: readonly CompiledPolicy[];
}

/** The exact key: a hash of the parts and the whole question. */
export function exactKey(parts: KeyParts, body: Record<string, unknown>): string {
  return digest(["exact", ...headOf(parts), canonical(body, notTheQuestion)]);
}

/**
 * For a chat request that may stand in for a similar one: the group (everything but the last
 * question's text) and that text. Undefined when the request is not only text (a picture, sound
 * or file is not in a text's embedding) or its last message is not the user's.
 */
export function similarQuestion(
  parts: KeyParts,
  body: Record<string, unknown>,
): { group: string; question: string } | undefined {
  if (parts.path !== "/chat/completions" || !Array.isArray(body.messages)) return undefined;
  const messages = body.messages as unknown[];
  if (!messages.every(textOnly)) return undefined;
  const last = messages.at(-1);
  if (!isRecord(last) || last.role !== "user") return undefined;
  const question = textOf(last.content);
  if (!question.trim()) return undefined;
  const rest = { ...body, messages: messages.slice(0, -1) };
  return {
    group: digest(["similar", ...headOf(parts), canonical(rest, notTheQuestion)]),
    question,
  };
}

/** A tenant's seed for the key: its project, else the key itself. */
export function tenantOf(key: { id: string; projectId: string | null }): string {
  return key.projectId ? `project:${key.projectId}` : `key:${key.id}`;
}

function headOf(p: KeyParts): string[] {
  return [p.tenant, p.path, p.stream ? "stream" : "whole", modelPrint(p.model), policyPrint(p)];
}

const modelPrints = new WeakMap<ModelEntry, string>();

/**
 * The model as it answers: its weights as pinned (commit and files, the template files among
 * them), its engine, arguments (a `--chat-template` among them) and declaration. The catalog makes
 * a new entry object for every change, so this is worked out once per change.
 */
function modelPrint(m: ModelEntry): string {
  let p = modelPrints.get(m);
  if (p === undefined) {
    p = digest([
      m.name,
      m.engine,
      m.source,
      JSON.stringify(m.args),
      m.upstreamModel ?? "",
      canonical(m.origin ?? null),
      canonical(m.def ?? null),
    ]);
    modelPrints.set(m, p);
  }
  return p;
}

const policyIds = new WeakMap<CompiledPolicy, number>();
let nextPolicyId = 1;

/**
 * The guardrails the answer passed: a policy compiled anew (changed) is another, so an answer an
 * older version let through is not given under the new one, nor one kept without a policy to a
 * request that has one.
 */
function policyPrint(p: KeyParts): string {
  if (p.policies.length === 0) return "";
  return p.policies.map((c) => {
    let id = policyIds.get(c);
    if (id === undefined) policyIds.set(c, id = nextPolicyId++);
    return id;
  }).join(",");
}

function textOnly(m: unknown): boolean {
  if (!isRecord(m)) return false;
  const c = m.content;
  if (c === undefined || c === null || typeof c === "string") return true;
  if (!Array.isArray(c)) return false;
  return c.every((part) => isRecord(part) && part.type === "text");
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (isRecord(p) && typeof p.text === "string" ? p.text : "")).join("\n");
}

function digest(parts: string[]): string {
  const h = createHash("sha256");
  for (const p of parts) h.update(p).update("\u0000");
  return h.digest("base64url");
}

/** JSON with object keys sorted, so two clients' orders of the same fields are one question. */
export function canonical(v: unknown, skip?: ReadonlySet<string>): string {
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x)).join(",")}]`;
  if (!isRecord(v)) return JSON.stringify(v) ?? "null";
  const keys = Object.keys(v).filter((k) => !skip?.has(k) && v[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
}
