/**
 * People and money, assembled: the tree, limits, prices, budgets, admission, audit, sessions and
 * sign-in, built once from the store and the resolved settings. `close()` writes the counters and
 * last-used times still in memory.
 */
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import { SignInFlows } from "../auth/sign_in_flows.ts";
import type { ChangeFeed } from "../control/change_feed.ts";
import type { Store } from "../../db/store.ts";
import { Admission } from "../accounting/allowance.ts";
import { RateWindows } from "../accounting/rate_windows.ts";
import { WindowExchange } from "../cluster/window_exchange.ts";
import type { Peers } from "../control/peers.ts";
import { BudgetSlices } from "../cluster/budget_slices.ts";
import { BudgetBook } from "../accounting/budgets.ts";
import { LimitsBook } from "../accounting/limits.ts";
import { type Price, PriceBook } from "../accounting/price.ts";
import type { ModelCatalog } from "../router/catalog.ts";
import { AuditLog } from "../audit/audit.ts";
import { Oidc, type OidcConfig } from "../auth/oidc.ts";
import { Sessions } from "../auth/sessions.ts";
import { SignIn } from "../auth/signin.ts";
import type { KeyService } from "../keys/keys.ts";
import { Tenancy } from "../tenancy/tenancy.ts";
import { DirectoryAccounts } from "../auth/directory_accounts.ts";
import type { LdapConfig } from "../auth/ldap/ldap_config.ts";
import { DirectorySignIn } from "../auth/ldap/directory_sign_in.ts";
import { DirectorySync } from "../auth/ldap/directory_sync.ts";
import type { Notifier } from "../notify/notifier.ts";
import type { GroupRules } from "../auth/group_places.ts";
import { ScimTokens } from "../scim/scim_tokens.ts";
import { ScimUsers } from "../scim/scim_users.ts";
import { ScimGroups } from "../scim/scim_groups.ts";
import type { PeopleServices } from "../tenancy/services.ts";

export interface PeopleOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  keys: KeyService;
  catalog: ModelCatalog;
  defaultPrice: Price;
  /** The ISO 4217 code of every price (`accounting.currency`); USD when not given. */
  currency?: string;
  sessionTtlMs: number;
  signupOpen: boolean;
  flushMs: number;
  /**
   * How often rate counts are exchanged with other control planes; 0: never, and budgets are
   * judged on this control plane's counters alone rather than on slices leased from the store.
   */
  rateExchangeMs: number;
  /** This control plane's id among those on the store; a fresh one each start by default. */
  plane?: string;
  oidc: OidcConfig | null;
  /** The directory, resolved from `auth.ldap` beforehand (it reads the password and CA files). */
  ldap?: LdapConfig | null;
  /** Told when a directory sync is refused. */
  notifier?: Pick<Notifier, "directorySyncRefused" | "directorySynced">;
  /** How SCIM's groups map to roles and places: oidc.roles and oidc.memberships. */
  scimRules?: GroupRules;
  publicUrl: string;
  firstPasswordFile?: string;
  fetch?: typeof fetch;
  /** How the limits learn of other control planes' changes. */
  changes?: ChangeFeed;
  /** Whether another control plane shares the store now: rate counts go out only then. */
  peers?: Peers;
}

export async function startPeople(o: PeopleOptions): Promise<PeopleServices> {
  const { store, clock, logger } = o;
  const changes = o.changes ? { changes: o.changes } : {};
  const tenancy = await Tenancy.load({ store, clock, ...changes });
  o.changes?.on("tenancy", () => tenancy.reload());
  const limits = await LimitsBook.load({ store, clock, ...changes });
  o.changes?.on("limits", () => limits.reload());
  const prices = new PriceBook({
    catalog: o.catalog,
    defaultPrice: o.defaultPrice,
    ...(o.currency ? { currency: o.currency } : {}),
  });
  const budgets = new BudgetBook({ store, clock, logger });
  await budgets.catchUp(tenancy);
  budgets.startFlushing(o.flushMs);
  o.keys.startFlushing(o.flushMs);
  const windows = new RateWindows();
  const slices = o.rateExchangeMs > 0 ? new BudgetSlices({ store, clock, logger }) : undefined;
  const admission = new Admission({
    clock,
    tenancy,
    limits,
    budgets,
    prices,
    windows,
    ...(slices ? { slices } : {}),
  });
  const exchange = new WindowExchange({
    store,
    clock,
    logger,
    windows,
    running: admission,
    plane: o.plane ?? crypto.randomUUID(),
    intervalMs: Math.max(1, o.rateExchangeMs),
    ...(o.peers ? { peers: o.peers } : {}),
  });
  if (o.rateExchangeMs > 0) exchange.start();
  const sessions = new Sessions({ store, clock, ttlMs: o.sessionTtlMs });
  const audit = new AuditLog({ store, clock });
  const oidc = new Oidc({
    config: o.oidc,
    flows: new SignInFlows({ store, clock }),
    audit,
    clock,
    logger,
    tenancy,
    ...(o.fetch ? { fetch: o.fetch } : {}),
  });
  const directoryAccounts = new DirectoryAccounts({ store, clock });
  const directory = new DirectorySignIn({
    config: o.ldap ?? null,
    clock,
    logger,
    tenancy,
    accounts: directoryAccounts,
    audit,
  });
  const directorySync = new DirectorySync({
    directory,
    revokeSessions: (id) => sessions.revokeAllOf(id),
    ...(o.notifier ? { notifier: o.notifier } : {}),
  });
  const scimDeps = {
    store,
    clock,
    tenancy,
    accounts: directoryAccounts,
    sessions,
    audit,
    rules: o.scimRules ?? { roles: {}, memberships: {} },
    baseUrl: () => `${o.publicUrl.replace(/\/$/, "")}/scim/v2`,
  };
  const scimUsers = new ScimUsers(scimDeps);
  const scim = {
    tokens: new ScimTokens({ store, clock }),
    users: scimUsers,
    groups: new ScimGroups(scimDeps, scimUsers),
  };
  return {
    tenancy,
    limits,
    prices,
    budgets,
    admission,
    exchange,
    audit,
    sessions,
    signIn: new SignIn({ store, clock, tenancy, sessions, directory }),
    oidc,
    directory,
    directoryAccounts,
    directorySync,
    scim,
    signupOpen: o.signupOpen,
    sessionTtlMs: o.sessionTtlMs,
    secureCookies: o.publicUrl.startsWith("https://"),
    firstPasswordFile: o.firstPasswordFile ?? null,
    async close() {
      await directorySync.stop();
      await exchange.close();
      await slices?.giveBack();
      await budgets.close();
      await o.keys.close();
    },
  };
}
