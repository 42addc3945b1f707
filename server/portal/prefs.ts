/** A person's portal preferences (language, time zone), kept in the store's portal_prefs. */
import { eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Store } from "../../db/store.ts";
import { portalPrefs } from "../../db/schema.ts";
import type { Locale } from "../../locales/mod.ts";

export interface Prefs {
  locale: Locale | null;
  timeZone: string | null;
}

export class PrefsStore {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async get(userId: string): Promise<Prefs> {
    const [row] = await this.deps.store.db.select().from(portalPrefs).where(
      eq(portalPrefs.userId, userId),
    );
    return {
      locale: row?.locale === "en" || row?.locale === "tr" ? row.locale : null,
      timeZone: row?.timeZone ?? null,
    };
  }

  async set(userId: string, prefs: Prefs): Promise<void> {
    const row = { userId, ...prefs, updatedAt: this.deps.clock.now() };
    await this.deps.store.write((tx) =>
      tx.insert(portalPrefs).values(row).onConflictDoUpdate({
        target: portalPrefs.userId,
        set: { locale: row.locale, timeZone: row.timeZone, updatedAt: row.updatedAt },
      })
    );
  }
}
