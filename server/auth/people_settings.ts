/** The settings of people and money: sign-in, sessions, the identity provider, accounting. */
import { z } from "zod";
import { bool, int, type Setting, text } from "../../core/settings.ts";

/** A mapping given as YAML, or as JSON text in a flag or environment variable. */
export function mapping<T>(
  key: string,
  description: string,
  value: z.ZodType<T>,
): Setting<Record<string, T>> {
  const record = z.record(z.string(), value);
  const dashed = key.replaceAll("_", "-").replaceAll(".", "-");
  return {
    key,
    flag: dashed,
    env: `LLMGW_${key.replaceAll(".", "_").toUpperCase()}`,
    description,
    default: {},
    live: false,
    type: "mapping",
    schema: z.union([
      record,
      z.string().transform((s, ctx) => {
        try {
          const parsed = record.safeParse(s.trim() ? JSON.parse(s) : {});
          if (parsed.success) return parsed.data;
          ctx.addIssue({ code: "custom", message: parsed.error.issues[0]?.message ?? "invalid" });
        } catch {
          ctx.addIssue({ code: "custom", message: "expected a mapping (YAML) or JSON object" });
        }
        return z.NEVER;
      }),
    ]) as z.ZodType<Record<string, T>>,
  };
}

/** Under `auth`, placed beside `auth.key_cache_ms` so the YAML section stays one block. */
export const peopleAuthSettings = {
  unknownKeysPerMinute: int(
    "auth.unknown_keys_per_minute",
    30,
    "Unrecognised API keys one client address may present per minute before it gets 429",
    { min: 1 },
  ),
  sessionTtlMs: int(
    "auth.session_ttl_ms",
    12 * 3_600_000,
    "How long a sign-in session lasts, in ms",
    {
      min: 60_000,
    },
  ),
  signupOpen: bool(
    "auth.signup_open",
    false,
    "Let people create their own accounts (POST /auth/signup)",
  ),
};

export const peopleSettings = {
  rateExchangeMs: int(
    "limits.exchange_interval_ms",
    1_000,
    "How often this control plane's rate-limit counts go to the store and the other control planes' come back, in ms (0: it counts alone)",
    { min: 0, max: 2_000 },
  ),
  accountingFlushMs: int(
    "accounting.flush_interval_ms",
    5_000,
    "How often budget counters and keys' last-used times are written, in ms",
    { min: 10 },
  ),
  defaultPromptPer1k: int(
    "accounting.default_prompt_per_1k",
    100,
    "Price of 1,000 prompt tokens for models without their own, in micro-units",
    { min: 0 },
  ),
  defaultCompletionPer1k: int(
    "accounting.default_completion_per_1k",
    300,
    "Price of 1,000 completion tokens for models without their own, in micro-units",
    { min: 0 },
  ),
  defaultCachedPer1k: int(
    "accounting.default_cached_per_1k",
    0,
    "Price of 1,000 cached prompt tokens (0: the prompt price), in micro-units",
    { min: 0 },
  ),
  currency: {
    ...text(
      "accounting.currency",
      "USD",
      "The currency of every price, cost and budget (an ISO 4217 code); shown wherever money is",
    ),
    schema: z.string().regex(/^[A-Z]{3}$/, "expected an ISO 4217 code such as USD or EUR"),
    type: "string (ISO 4217 code)",
  } as Setting<string>,
  oidcIssuer: text("oidc.issuer", "", "OpenID Connect issuer URL (empty: no single sign-on)"),
  oidcClientId: text("oidc.client_id", "", "OpenID Connect client id"),
  oidcClientSecretFile: text(
    "oidc.client_secret_file",
    "",
    "File holding the OpenID Connect client secret (empty: a public client using PKCE alone)",
  ),
  oidcRedirectUrl: text(
    "oidc.redirect_url",
    "",
    "Callback URL registered with the provider (empty: PUBLIC_URL/auth/oidc/callback)",
  ),
  oidcScopes: text("oidc.scopes", "openid email profile", "Scopes asked of the provider"),
  oidcGroupsClaim: text(
    "oidc.groups_claim",
    "groups",
    "ID token claim that lists the person's groups",
  ),
  oidcLabel: text("oidc.label", "single sign-on", "Name of the provider shown to people"),
  oidcRoles: mapping(
    "oidc.roles",
    "Role → groups that grant it (administrator, operator, tenant_admin, member, viewer)",
    z.array(z.string()),
  ),
  oidcMemberships: mapping(
    "oidc.memberships",
    "Group → place in the tree: org:NAME or team:ORG/TEAM",
    z.string(),
  ),
};
