/**
 * Local sign-in, throttled so that a guesser cannot lock the owner out. Everyone is slowed per
 * address; a browser that never signed in to the account is also slowed per account (all such
 * browsers together); a browser that did (it carries the account's device mark, see
 * device_cookie.ts) is slowed only on its own. Each is a growing delay, never a hard lock, so an
 * attack from elsewhere leaves the owner's known browser signing in as usual. An unknown email is
 * verified against a decoy hash so it takes as long as a wrong password. Accounts whose password
 * lives with the identity provider (`!oidc`) never match a local password; a name with no local
 * password is tried against the directory (auth.ldap) when one is set, after the same throttle.
 * The throttles are in the store, so a guesser spread over a cluster's control planes is slowed
 * once, not per plane.
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
import type { DirectorySignIn } from "./ldap/directory_sign_in.ts";

const forgetMs = 15 * 60_000;

type UserRow = NonNullable<Awaited<ReturnType<Tenancy["credentials"]>>>;

export class SignIn {
  readonly #throttle: StoreThrottle<"address" | "account" | "device">;

  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      tenancy: Tenancy;
      sessions: Sessions;
      /** Directory sign-in (auth.ldap), tried for a name with no local password. */
      directory?: Pick<DirectorySignIn, "usable" | "authenticate">;
    },
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
    const person = usable
      ? await this.#local(row, password)
      : this.deps.directory?.usable
      ? await this.deps.directory.authenticate(login, password)
      : await verifyPassword(password, await decoyHash()).then(() => null);
    if (!person) throw new AppError("invalid_credentials");
    // The address keeps its other failures: a guesser could sign in to an account of its own.
    if (known) await this.#throttle.clear("device", device);
    else {
      await this.#throttle.forgive("address", addr);
      await this.#throttle.clear("account", account);
    }
    const { token } = await this.deps.sessions.open(person.id);
    // A directory account has no local secret to sign a device mark with: the browser keeps
    // whatever mark it had.
    if (!usable) return { person, token, mark: mark ?? "" };
    const hash = (await this.deps.tenancy.credentials({ id: person.id }))!.passwordHash;
    return { person, token, mark: makeDeviceMark(hash, person.id, now) };
  }

  /** A local password proved (and re-hashed when its hash is an older kind). */
  async #local(row: UserRow, password: string): Promise<Person | null> {
    if (!(await verifyPassword(password, row.passwordHash)) || row.state !== "active") return null;
    if (needsRehash(row.passwordHash)) {
      await this.deps.tenancy.updatePerson(row.id, { passwordHash: await hashPassword(password) });
    }
    return toPerson(row);
  }

  async #byUsername(username: string) {
    const p = [...this.deps.tenancy.people.values()].find((x) => x.username === username);
    return p ? await this.deps.tenancy.credentials({ id: p.id }) : undefined;
  }
}
