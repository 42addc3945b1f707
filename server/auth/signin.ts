/**
 * Local sign-in, throttled so that a guesser cannot lock the owner out. Everyone is slowed per
 * address; a browser that never signed in to the account is also slowed per account (all such
 * browsers together); a browser that did (it carries the account's device mark, see
 * device_cookie.ts) is slowed only on its own. Each is a growing delay, never a hard lock, so an
 * attack from elsewhere leaves the owner's known browser signing in as usual. An unknown email is
 * verified against a decoy hash so it takes as long as a wrong password. Accounts whose password
 * lives with the identity provider (`!oidc`) never match a local password. The throttles are in
 * the store, so a guesser spread over a cluster's control planes is slowed once, not per plane.
 */
import type { Clock } from "../../core/clock.ts";
import type { Store } from "../../db/store.ts";
import { AppError } from "../../core/errors.ts";
import type { Person, Tenancy } from "../tenancy/tenancy.ts";
import { toPerson } from "../tenancy/tenancy.ts";
import { decoyHash, hashPassword, needsRehash, verifyPassword } from "./passwords.ts";
import type { Sessions } from "./sessions.ts";
import { StoreThrottle } from "./store_throttle.ts";
import { isDeviceMark, makeDeviceMark } from "./device_cookie.ts";
import { formatReset } from "../accounting/window.ts";

const forgetMs = 15 * 60_000;

export class SignIn {
  readonly #throttle: StoreThrottle<"address" | "account" | "device">;

  constructor(
    private readonly deps: { store: Store; clock: Clock; tenancy: Tenancy; sessions: Sessions },
  ) {
    const slow = { baseMs: 1_000, maxMs: 5 * 60_000, forgetMs };
    this.#throttle = new StoreThrottle({
      store: deps.store,
      clock: deps.clock,
      kinds: {
        address: { free: 10, ...slow },
        account: { free: 10, ...slow },
        device: { free: 5, ...slow },
      },
    });
  }

  /**
   * `mark` is the browser's device cookie, if any; on success the answer carries a fresh one to
   * set.
   */
  async signIn(login: string, password: string, addr: string, mark?: string): Promise<{
    person: Person;
    token: string;
    mark: string;
  }> {
    const account = login.trim().toLowerCase();
    const now = this.deps.clock.now();
    // Sign-in by email, or by username for accounts without one (init's administrator).
    const row = (await this.deps.tenancy.credentials({ email: account })) ??
      (await this.#byUsername(account));
    const usable = row && !row.passwordHash.startsWith("!") && row.passwordHash !== "";
    const known = usable && isDeviceMark(mark, row.passwordHash, row.id, now);
    const device = known ? `${row.id}\u0000${mark}` : "";
    // Counted as a failure before the (slow) check and taken back on success: otherwise many
    // guesses sent at once would all pass the throttle before the first one failed.
    const wait = await this.#throttle.take(
      known ? [["device", device]] : [["address", addr], ["account", account]],
    );
    if (wait > 0) {
      throw new AppError("too_many_attempts", { reset: formatReset(wait) }, null, {
        retryAfterS: Math.ceil(wait / 1000),
      });
    }
    const ok = await verifyPassword(password, usable ? row.passwordHash : await decoyHash());
    if (!usable || !ok || row.state !== "active") throw new AppError("invalid_credentials");
    // The address keeps its other failures: a guesser could sign in to an account of its own.
    if (known) await this.#throttle.clear("device", device);
    else {
      await this.#throttle.forgive("address", addr);
      await this.#throttle.clear("account", account);
    }
    let hash = row.passwordHash;
    if (needsRehash(hash)) {
      hash = await hashPassword(password);
      await this.deps.tenancy.updatePerson(row.id, { passwordHash: hash });
    }
    const { token } = await this.deps.sessions.open(row.id);
    return { person: toPerson(row), token, mark: makeDeviceMark(hash, row.id, now) };
  }

  async #byUsername(username: string) {
    const p = [...this.deps.tenancy.people.values()].find((x) => x.username === username);
    return p ? await this.deps.tenancy.credentials({ id: p.id }) : undefined;
  }
}
