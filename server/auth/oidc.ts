/**
 * Single sign-on with OpenID Connect: authorization code with PKCE (S256), the ID token verified
 * with `jose` against the provider's JWKS (issuer, audience, expiry and nonce). People are created
 * at their first sign-in; groups map to a role and a place in the tree, re-applied at every
 * sign-in so leaving a group takes the role away. A provider that cannot be reached or is set up
 * wrongly disables this sign-in only, with the reason; local accounts keep working.
 */
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import { AppError } from "../../core/errors.ts";
import type { SignInFlows } from "./sign_in_flows.ts";
import type { Person, Tenancy } from "../tenancy/tenancy.ts";
import { placeFromGroups } from "./group_places.ts";
import type { AuditLog } from "../audit/audit.ts";
import type { Actor } from "../tenancy/access.ts";
import { oidcPasswordSentinel } from "./passwords.ts";
import { randomToken, sha256HexSync } from "./secrets.ts";

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUrl: string;
  scopes: string;
  groupsClaim: string;
  label: string;
  roles: Record<string, string[]>;
  memberships: Record<string, string>;
  /** A setting that could not be resolved (an unreadable secret file): the reason sign-in is off. */
  error?: string;
}

/** The OIDC settings resolved once at start; null when no issuer is set. */
export async function oidcConfigFrom(s: {
  oidcIssuer: string;
  oidcClientId: string;
  oidcClientSecretFile: string;
  oidcRedirectUrl: string;
  oidcScopes: string;
  oidcGroupsClaim: string;
  oidcLabel: string;
  oidcRoles: Record<string, string[]>;
  oidcMemberships: Record<string, string>;
}, publicUrl: string): Promise<OidcConfig | null> {
  if (!s.oidcIssuer) return null;
  let clientSecret = "";
  let error: string | undefined;
  if (s.oidcClientSecretFile) {
    try {
      clientSecret = (await Deno.readTextFile(s.oidcClientSecretFile)).trim();
    } catch (e) {
      error = `cannot read oidc.client_secret_file ${s.oidcClientSecretFile}: ${
        (e as Error).message
      }`;
    }
  }
  return {
    issuer: s.oidcIssuer,
    clientId: s.oidcClientId,
    clientSecret,
    redirectUrl: s.oidcRedirectUrl || `${publicUrl.replace(/\/$/, "")}/auth/oidc/callback`,
    scopes: s.oidcScopes,
    groupsClaim: s.oidcGroupsClaim,
    label: s.oidcLabel,
    roles: s.oidcRoles,
    memberships: s.oidcMemberships,
    ...(error ? { error } : {}),
  };
}

interface Discovery {
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  issuer: string;
}

export interface OidcStatus {
  configured: boolean;
  ok: boolean;
  label: string;
  reason: string | null;
}

const pendingTtlMs = 10 * 60_000;

export class Oidc {
  #discovery: Discovery | undefined;
  #jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  #reason: string | null = null;
  #triedAt = 0;

  constructor(
    private readonly deps: {
      config: OidcConfig | null;
      clock: Clock;
      logger: Logger;
      tenancy: Tenancy;
      flows: SignInFlows;
      audit?: AuditLog;
      fetch?: typeof fetch;
    },
  ) {}

  /** The provider acts for the person: their creation and any role change are on record. */
  async #record(action: string, before: Person | null, after: Person): Promise<void> {
    const actor: Actor = {
      kind: "system",
      id: "oidc",
      name: `sign-in via ${this.deps.config?.label ?? "oidc"}`,
      role: "administrator",
      personId: after.id,
      orgId: null,
      teamId: null,
      readOnly: false,
    };
    await this.deps.audit?.record(
      actor,
      action,
      {
        kind: "person",
        id: after.id,
        orgId: after.orgId ?? before?.orgId ?? null,
      },
      before,
      after,
    );
  }

  status(): OidcStatus {
    const c = this.deps.config;
    if (!c) return { configured: false, ok: false, label: "", reason: "not configured" };
    return {
      configured: true,
      ok: this.#discovery !== undefined,
      label: c.label,
      reason: this.#reason,
    };
  }

  /** Reads the provider's discovery document; a failure is kept as the reason, not thrown. */
  async discover(): Promise<boolean> {
    const c = this.deps.config;
    if (!c) return false;
    if (this.#discovery) return true;
    const now = this.deps.clock.now();
    if (this.#reason && now - this.#triedAt < 30_000) return false;
    this.#triedAt = now;
    try {
      if (c.error) throw new Error(c.error);
      for (
        const [name, v] of [["issuer", c.issuer], ["client_id", c.clientId], [
          "redirect_url",
          c.redirectUrl,
        ]]
      ) {
        if (!v) throw new Error(`oidc.${name} is not set`);
      }
      const url = `${c.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
      const res = await (this.deps.fetch ?? fetch)(url, { signal: AbortSignal.timeout(10_000) });
      if (!res.ok) throw new Error(`${url} answered HTTP ${res.status}`);
      const doc = await res.json() as Partial<Discovery>;
      for (const k of ["authorization_endpoint", "token_endpoint", "jwks_uri", "issuer"] as const) {
        if (typeof doc[k] !== "string") throw new Error(`the discovery document has no ${k}`);
      }
      if (doc.issuer!.replace(/\/$/, "") !== c.issuer.replace(/\/$/, "")) {
        throw new Error(`the provider calls itself '${doc.issuer}', not '${c.issuer}'`);
      }
      this.#discovery = doc as Discovery;
      this.#jwks = createRemoteJWKSet(new URL(doc.jwks_uri!));
      this.#reason = null;
      return true;
    } catch (e) {
      this.#reason = (e as Error).message;
      this.deps.logger.error("single sign-on is unavailable", { reason: this.#reason });
      return false;
    }
  }

  #unavailable(): AppError {
    return new AppError("sign_in_unavailable", {
      provider: this.deps.config?.label ?? "single sign-on",
      reason: this.#reason ?? "not configured",
    });
  }

  /** Starts a sign-in: the provider's URL to send the browser to, and the state to bind to it. */
  async start(): Promise<{ url: string; state: string }> {
    if (!(await this.discover())) throw this.#unavailable();
    const c = this.deps.config!;
    const state = randomToken("", 24);
    const nonce = randomToken("", 24);
    const verifier = randomToken("", 48);
    // In the store, not in memory: the browser may come back to another control plane.
    await this.deps.flows.put(state, { verifier, nonce }, pendingTtlMs);
    const challenge = Buffer.from(sha256HexSync(verifier), "hex").toString("base64url");
    const url = new URL(this.#discovery!.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: c.clientId,
      redirect_uri: c.redirectUrl,
      scope: c.scopes,
      state,
      nonce,
      code_challenge: challenge,
      code_challenge_method: "S256",
    }).toString();
    return { url: url.toString(), state };
  }

  /** Finishes a sign-in: exchanges the code, verifies the ID token, and finds or makes the person. */
  async finish(
    input: { code: string; state: string; boundState: string | undefined },
  ): Promise<Person> {
    if (!(await this.discover())) throw this.#unavailable();
    const c = this.deps.config!;
    const pending = await this.deps.flows.take(input.state);
    if (!pending || input.boundState !== input.state) {
      throw new AppError("invalid_credentials");
    }
    const body = new URLSearchParams({
      grant_type: "authorization_code",
      code: input.code,
      redirect_uri: c.redirectUrl,
      client_id: c.clientId,
      code_verifier: pending.verifier,
      ...(c.clientSecret ? { client_secret: c.clientSecret } : {}),
    });
    let idToken: string;
    try {
      const res = await (this.deps.fetch ?? fetch)(this.#discovery!.token_endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      const json = await res.json() as { id_token?: string };
      if (!res.ok || typeof json.id_token !== "string") throw new Error(`HTTP ${res.status}`);
      idToken = json.id_token;
    } catch (e) {
      this.deps.logger.warn("the provider refused the code", { error: (e as Error).message });
      throw new AppError("invalid_credentials");
    }
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(idToken, this.#jwks!, {
        issuer: this.#discovery!.issuer,
        audience: c.clientId,
        currentDate: new Date(this.deps.clock.now()),
        requiredClaims: ["sub", "exp", "iat", "nonce"],
      }));
      if (claims.nonce !== pending.nonce) throw new Error("nonce does not match");
    } catch (e) {
      this.deps.logger.warn("an ID token was refused", { reason: (e as Error).message });
      throw new AppError("invalid_credentials");
    }
    return await this.#person(claims);
  }

  async #person(claims: JWTPayload): Promise<Person> {
    const c = this.deps.config!;
    const t = this.deps.tenancy;
    const subject = `${claims.iss}|${claims.sub}`;
    const email = typeof claims.email === "string" ? claims.email.toLowerCase() : null;
    const name = typeof claims.name === "string" ? claims.name : null;
    let row = await t.credentials({ oidcSubject: subject });
    if (!row && email) row = await t.credentials({ email });
    const rawGroups = claims[c.groupsClaim];
    // Too many groups for the token (Entra's overage) is not "no groups": keep what the person has.
    const groups = Array.isArray(rawGroups) ? rawGroups.map(String) : null;
    if (!groups) {
      this.deps.logger.error("the ID token carries no group list; role and place left unchanged", {
        claim: c.groupsClaim,
      });
    }
    const mapped = groups ? await placeFromGroups(t, c, groups) : null;
    if (!row) {
      const made = await t.createPerson({
        username: email ?? `oidc-${String(claims.sub).slice(0, 60)}`,
        email,
        displayName: name,
        role: mapped?.role ?? "member",
        orgId: mapped?.orgId ?? null,
        teamId: mapped?.teamId ?? null,
        passwordHash: oidcPasswordSentinel,
        oidcSubject: subject,
      });
      await this.#record("person.create", null, made);
      return made;
    }
    if (row.state !== "active") throw new AppError("invalid_credentials");
    const person = t.person(row.id);
    // An account with a local password (init's administrator) keeps its role and place: the
    // provider's groups must never lock out the account that repairs the provider's settings.
    if (person.signIn === "local" || !mapped) return person;
    const unchanged = person.role === mapped.role && person.orgId === mapped.orgId &&
      person.teamId === mapped.teamId && (!name || person.displayName === name);
    if (unchanged) return person;
    const after = await t.updatePerson(row.id, {
      role: mapped.role,
      orgId: mapped.orgId,
      teamId: mapped.teamId,
      ...(name ? { displayName: name } : {}),
    });
    await this.#record("person.update", person, after);
    return after;
  }
}
