/** A request's input checked against its zod schema; the first issue is the caller's answer. */
import type { z } from "zod";
import { AppError } from "../../core/errors.ts";

/** The parsed value, or `invalid_request` naming the first field that is wrong. */
export function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = issue.path.join(".");
  throw new AppError(
    "invalid_request",
    { detail: `${path || "body"}: ${issue.message}` },
    path || null,
  );
}
