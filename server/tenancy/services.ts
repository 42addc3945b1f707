/**
 * People and money: the tree, limits, prices, budgets, admission, audit, sessions and sign-in,
 * as the rooms receive them. The top floor builds them (server/wiring/start_people.ts).
 */
import type { Admission } from "../accounting/allowance.ts";
import type { WindowExchange } from "../cluster/window_exchange.ts";
import type { BudgetBook } from "../accounting/budgets.ts";
import type { LimitsBook } from "../accounting/limits.ts";
import type { PriceBook } from "../accounting/price.ts";
import type { AuditLog } from "../audit/audit.ts";
import type { Oidc } from "../auth/oidc.ts";
import type { Sessions } from "../auth/sessions.ts";
import type { SignIn } from "../auth/signin.ts";
import type { Tenancy } from "./tenancy.ts";
import type { DirectoryAccounts } from "../auth/directory_accounts.ts";
import type { DirectorySignIn } from "../auth/ldap/directory_sign_in.ts";
import type { DirectorySync } from "../auth/ldap/directory_sync.ts";
import type { ScimTokens } from "../scim/scim_tokens.ts";
import type { ScimUsers } from "../scim/scim_users.ts";
import type { ScimGroups } from "../scim/scim_groups.ts";
export interface PeopleServices {
  tenancy: Tenancy;
  limits: LimitsBook;
  prices: PriceBook;
  budgets: BudgetBook;
  admission: Admission;
  /** Rate counts shared with the other control planes on the store. */
  exchange: WindowExchange;
  audit: AuditLog;
  sessions: Sessions;
  signIn: SignIn;
  oidc: Oidc;
  /** Directory sign-in (auth.ldap) and the accounts bound to a directory or to SCIM. */
  directory: DirectorySignIn;
  directoryAccounts: DirectoryAccounts;
  /** The directory's sync; the leader runs it (build_services registers the duty). */
  directorySync: DirectorySync;
  /** SCIM provisioning at /scim/v2: its tokens, users and groups. */
  scim: { tokens: ScimTokens; users: ScimUsers; groups: ScimGroups };
  signupOpen: boolean;
  sessionTtlMs: number;
  /** Cookies get `Secure` when the public URL is https (or the request came over https). */
  secureCookies: boolean;
  /** Where init keeps the first administrator's password until their first sign-in. */
  firstPasswordFile: string | null;
  close(): Promise<void>;
}
