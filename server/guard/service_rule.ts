/**
 * An outside guard service as a rule: a small declarative adapter (where to POST, the body, the
 * headers read from files on every call, where in the answer the verdict and its reason are).
 */
import { z } from "zod";

/** A dotted path into a JSON answer, numbers for list items: `results.0.flagged`. */
const dottedPath = z.string().regex(/^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/, "a dotted path");

export const serviceRule = z.strictObject({
  /** The rule in the verdict: which service decided. */
  name: z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, "lower-case letters, digits, _ . -"),
  kind: z.literal("service"),
  /** An unsafe answer blocks, or is only recorded. */
  action: z.enum(["block", "flag"]).optional(),
  url: z.url({ protocol: /^https?$/ }),
  /** The JSON body, where `{{text}}` becomes the text as a JSON string; `{"input": {{text}}}`. */
  body: z.string().min(1).max(10_000).includes("{{text}}").optional(),
  /** Header name → file whose contents are its value, read again on every call (a rotated key). */
  header_files: z.record(z.string().regex(/^[A-Za-z0-9-]+$/), z.string().min(1)).optional(),
  /** Unsafe when the value here is true, a number > 0, a non-empty list or a string not "false". */
  blocked: dottedPath,
  /** The reason, for the verdict. */
  reason: dottedPath.optional(),
  on: z.enum(["input", "output", "both"]).optional(),
  timeout_ms: z.number().int().min(1).max(60_000).optional(),
});
export type ServiceRule = z.infer<typeof serviceRule>;

export const defaultServiceBody = '{"input": {{text}}}';
export const defaultServiceTimeoutMs = 3000;
