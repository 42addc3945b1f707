/**
 * Local sign-in. Throttles before anything else, per (address, account) so a guesser elsewhere
 * cannot lock the owner out, per address, and per account overall. An unknown email is verified
 * against a decoy hash so it takes as long as a wrong password. Accounts whose password lives
 * with the identity provider (`!oidc`) never match a local password.
 */
import type { Clock } from "../../core/clock.ts";
import { AppError } from "../../core/errors.ts";
import type { Person, Tenancy } from "../tenancy/tenancy.ts";
import { toPerson } from "../tenancy/tenancy.ts";
import { decoyHash, hashPassword, needsRehash, verifyPassword } from "./passwords.ts";
import type { Sessions } from "./sessions.ts";
import { Throttle } from "./throttle.ts";
import { formatReset } from "../accounting/window.ts";

export class SignIn {
  readonly #pair: Throttle;
  readonly #address: Throttle;
  readonly #account: Throttle;

  constructor(
    private readonly deps: { clock: Clock; tenancy: Tenancy; sessions: Sessions },
  ) {
    const windowMs = 15 * 60_000;
    this.#pair = new Throttle({ clock: deps.clock, max: 5, windowMs });
    this.#address = new Throttle({ clock: deps.clock, max: 30, windowMs });
    this.#account = new Throttle({ clock: deps.clock, max: 50, windowMs });
  }

  async signIn(login: string, password: string, addr: string): Promise<{
    person: Person;
    token: string;
  }> {
    const account = login.trim().toLowerCase();
    const pair = `${addr}\u0000${account}`;
    const wait = Math.max(
      this.#pair.waitFor(pair),
      this.#address.waitFor(addr),
      this.#account.waitFor(account),
    );
    if (wait > 0) throw new AppError("too_many_attempts", { reset: formatReset(wait) });
    // Sign-in by email, or by username for accounts without one (init's administrator).
    const row = (await this.deps.tenancy.credentials({ email: account })) ??
      (await this.#byUsername(account));
    const usable = row && !row.passwordHash.startsWith("!") && row.passwordHash !== "";
    const ok = await verifyPassword(password, usable ? row.passwordHash : await decoyHash());
    if (!usable || !ok || row.state !== "active") {
      this.#pair.fail(pair);
      this.#address.fail(addr);
      this.#account.fail(account);
      throw new AppError("invalid_credentials");
    }
    this.#pair.clear(pair);
    if (needsRehash(row.passwordHash)) {
      await this.deps.tenancy.updatePerson(row.id, { passwordHash: await hashPassword(password) });
    }
    const { token } = await this.deps.sessions.open(row.id);
    return { person: toPerson(row), token };
  }

  async #byUsername(username: string) {
    const p = [...this.deps.tenancy.people.values()].find((x) => x.username === username);
    return p ? await this.deps.tenancy.credentials({ id: p.id }) : undefined;
  }
}
