/**
 * The chat page's way to the models: POST /portal/chat with the session cookie and its CSRF token
 * in `x-csrf-token`. No API key ever reaches the page: the request is sent through dispatch()
 * with the person's portal key, a key named `portal-chat` made for them on first use and kept
 * only as a hash like any other (they see it in their list, its usage is theirs, and revoking it
 * just makes a new one next time). Its lifetime obeys the levels' longest key lifetime.
 */
import type { Context } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app_env.ts";
import type { PortalDeps } from "./portal_deps.ts";
import { errorResponse } from "../errors.ts";
import { AppError } from "../../core/errors.ts";
import type { ApiKeyInfo } from "../keys/keys.ts";
import { dispatch } from "../router/dispatch.ts";
import { readJsonBody } from "../router/read_body.ts";
import { parse } from "../routes/parse_input.ts";
import type { Person } from "../tenancy/tenancy.ts";
import { format } from "../../locales/mod.ts";
import type { Words } from "./i18n.ts";
import { personKey } from "./model_rows.ts";

export const portalKeyName = "portal-chat";

/** A message's text, or its parts: text and pictures (data: URLs the browser read from files). */
const content = z.union([
  z.string().max(200_000),
  z.array(z.discriminatedUnion("type", [
    z.object({ type: z.literal("text"), text: z.string().max(200_000) }),
    z.object({
      type: z.literal("image_url"),
      image_url: z.object({ url: z.string().regex(/^data:image\/[a-z+.-]+;base64,/) }),
    }),
  ])).min(1).max(20),
]);

const chatBody = z.object({
  model: z.string().min(1).max(200),
  messages: z.array(z.object({
    role: z.enum(["system", "user", "assistant"]),
    content,
  })).min(1).max(500),
  max_tokens: z.number().int().positive().max(1_000_000).optional(),
  temperature: z.number().min(0).max(2).optional(),
});

export async function portalChatKey(
  deps: Pick<PortalDeps, "clock" | "keys" | "people">,
  person: Person,
): Promise<ApiKeyInfo> {
  const now = deps.clock.now();
  const mine = (await deps.keys.list()).find((k) =>
    k.userId === person.id && k.name === portalKeyName && !k.revokedAt &&
    (!k.expiresAt || k.expiresAt > now + 60_000)
  );
  if (mine) return mine;
  const { tenancy, limits } = deps.people;
  const cap = limits.effective(tenancy.chainAbove({ kind: "person", id: person.id })).maxKeyTtlMs;
  const { key: _, ...info } = await deps.keys.create({
    name: portalKeyName,
    userId: person.id,
    projectId: null,
    expiresAt: cap ? now + cap.value : null,
  });
  return info;
}

/** An error as the person reads it: the code's message in their language. */
export function errorText(words: Words, e: AppError): string {
  return format(words.errors[e.code], e.params);
}

/** The portal's JSON refusals: the API's one envelope, its message in the person's language. */
export function portalErrorResponse(c: Context<AppEnv>, words: Words, e: AppError): Response {
  return errorResponse(e, c.get("requestId"), errorText(words, e));
}

export async function portalChat(
  deps: PortalDeps,
  c: Context<AppEnv>,
  person: Person,
  words: Words,
): Promise<Response> {
  try {
    const input = parse(chatBody, await readJsonBody(c.req.raw, deps.limits.maxBodyBytes));
    if (!deps.people.admission.allows(personKey(person), input.model)) {
      throw new AppError("model_not_found", { model: input.model }, "model");
    }
    c.set("apiKey", await portalChatKey(deps, person));
    return await dispatch(deps.dispatch, c, "/chat/completions", {
      model: input.model,
      messages: input.messages,
      ...(input.max_tokens ? { max_tokens: input.max_tokens } : {}),
      ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
      stream: true,
      stream_options: { include_usage: true },
    });
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return portalErrorResponse(c, words, e);
  }
}
