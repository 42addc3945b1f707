/**
 * The portal's language and formats. The language comes from the person's profile, then the
 * `llmgw_lang` cookie, then Accept-Language, then English. Numbers, percentages and dates are
 * written the language's way through Intl (`93%` in English, `%93` in Turkish).
 */
import { format, type Locale, locales, type Messages, messagesFor } from "../../locales/mod.ts";
import { formatPrice, formatSpend } from "../accounting/money.ts";

export const langCookie = "llmgw_lang";

export function isLocale(x: unknown): x is Locale {
  return typeof x === "string" && (locales as readonly string[]).includes(x);
}

/** Picks the first supported language of an Accept-Language header, by its q weights. */
export function fromAcceptLanguage(header: string | undefined): Locale | undefined {
  if (!header) return undefined;
  const ranked = header.split(",").map((part, i) => {
    const [tag = "", ...params] = part.trim().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return { base: tag.trim().toLowerCase().split("-")[0]!, q: q ? Number(q.slice(2)) : 1, i };
  }).filter((x) => x.q > 0).sort((a, b) => b.q - a.q || a.i - b.i);
  return ranked.map((x) => x.base).find(isLocale);
}

export function chooseLocale(
  profile: string | null | undefined,
  cookie: string | undefined,
  acceptLanguage: string | undefined,
): Locale {
  if (isLocale(profile)) return profile;
  if (isLocale(cookie)) return cookie;
  return fromAcceptLanguage(acceptLanguage) ?? "en";
}

export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Formatting in one language and time zone; made once per request. */
export class Fmt {
  readonly #int: Intl.NumberFormat;
  readonly #pct: Intl.NumberFormat;
  readonly #dec: Intl.NumberFormat;
  readonly #dateTime: Intl.DateTimeFormat;
  readonly #day: Intl.DateTimeFormat;
  readonly #shortDay: Intl.DateTimeFormat;
  readonly #rel: Intl.RelativeTimeFormat;

  constructor(readonly locale: Locale, readonly timeZone: string, readonly currency = "USD") {
    this.#int = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
    this.#pct = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 0 });
    this.#dec = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });
    this.#dateTime = new Intl.DateTimeFormat(locale, {
      dateStyle: "medium",
      timeStyle: "short",
      timeZone,
    });
    this.#day = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone });
    this.#shortDay = new Intl.DateTimeFormat(locale, { day: "numeric", month: "short", timeZone });
    this.#rel = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
  }

  int(n: number): string {
    return this.#int.format(n);
  }
  decimal(n: number): string {
    return this.#dec.format(n);
  }
  /** A share from 0 to 1. */
  percent(share: number): string {
    return this.#pct.format(share);
  }
  /** A spend or budget (micro-units) in the currency, as ctl and the exports show it too. */
  money(micros: number): string {
    return formatSpend(micros, this.currency, this.locale);
  }
  /** A price (micro-units per 1,000 tokens, as kept) as the currency per 1M tokens. */
  price(microsPer1k: number): string {
    return formatPrice(microsPer1k, this.currency, this.locale);
  }
  bytes(n: number): string {
    const gib = n / 2 ** 30;
    return `${this.#dec.format(gib)} GiB`;
  }
  dateTime(ms: number): string {
    return this.#dateTime.format(ms);
  }
  day(ms: number): string {
    return this.#day.format(ms);
  }
  shortDay(ms: number): string {
    return this.#shortDay.format(ms);
  }
  /** "5 seconds ago", "3 dakika önce". */
  ago(ms: number, now: number): string {
    const s = Math.round((ms - now) / 1000);
    if (Math.abs(s) < 60) return this.#rel.format(s, "second");
    const m = Math.round(s / 60);
    if (Math.abs(m) < 60) return this.#rel.format(m, "minute");
    const h = Math.round(m / 60);
    if (Math.abs(h) < 48) return this.#rel.format(h, "hour");
    return this.#rel.format(Math.round(h / 24), "day");
  }
}

export type PortalMessages = Messages["portal"];
export type PortalKey = keyof PortalMessages;

/** The portal's words in one language, with `{name}` parameters filled. */
export interface Words {
  locale: Locale;
  m: PortalMessages;
  errors: Messages["errors"];
  t(key: PortalKey, params?: Record<string, string | number>): string;
}

export function wordsFor(locale: Locale): Words {
  const all = messagesFor(locale);
  return {
    locale,
    m: all.portal,
    errors: all.errors,
    t: (key, params) => format(all.portal[key], params),
  };
}
