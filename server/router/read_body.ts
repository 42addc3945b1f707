/** Reads a /v1 request body: bounded in size, JSON, an object. Errors say what is wrong. */
import { AppError } from "../../core/errors.ts";
import { isRecord } from "./json_fields.ts";

/** The one limit a route that reads a body needs (`server.max_body_bytes`, live). */
export interface BodyLimit {
  readonly maxBodyBytes: number;
}

export async function readJsonBody(req: Request, limit: number): Promise<Record<string, unknown>> {
  return (await readJsonRequest(req, limit)).body;
}

/**
 * The body parsed, and the bytes it was parsed from: a request the router passes on unchanged is
 * sent as those bytes, not serialised again (a long prompt costs as much to write as to read).
 */
export async function readJsonRequest(
  req: Request,
  limit: number,
): Promise<{ body: Record<string, unknown>; bytes: Uint8Array<ArrayBuffer> }> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (declared > limit) throw new AppError("body_too_large", { limit });
  // A declared length is enforced by the HTTP server's framing, so the body can be read whole;
  // only a chunked body needs counting as it comes.
  const bytes = Number.isFinite(declared)
    ? new Uint8Array(await req.arrayBuffer())
    : await readBounded(req.body, limit);
  if (bytes.length === 0) throw new AppError("invalid_json", { detail: "the body is empty" });
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new AppError("invalid_json", { detail: (e as Error).message });
  }
  if (!isRecord(value)) {
    throw new AppError("invalid_json", { detail: "the body must be a JSON object" });
  }
  return { body: value, bytes };
}

/** The body's `model`, which every /v1 request that reaches an engine must name. */
export function requireModel(body: Record<string, unknown>): string {
  const model = body.model;
  if (model === undefined) {
    throw new AppError("invalid_request", { detail: "'model' is required" }, "model");
  }
  if (typeof model !== "string" || model.trim() === "") {
    throw new AppError(
      "invalid_request",
      { detail: "'model' must be a non-empty string" },
      "model",
    );
  }
  return model;
}

async function readBounded(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array<ArrayBuffer>> {
  if (!body) return new Uint8Array();
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw new AppError("body_too_large", { limit });
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
