/**
 * Money shown one way everywhere: the portal, ctl's tables, the CSV exports and the admin API's
 * docs. A price reads as the cluster's currency per 1M tokens (how the industry quotes them), a
 * spend as the currency with as many decimals as it has, up to six. What is kept does not change:
 * prices in micro-units per 1,000 tokens (so 1 is a thousandth of the currency per 1M tokens),
 * costs and budgets in micro-units. The decimals are made from the integers, never through a
 * float, so every place prints the same figure for the same amount.
 */

/** The words after a price: what `1.25` is of. */
export const priceUnit = "per 1M tokens";

/** A price as the currency per 1M tokens: exact decimal text, two or three decimals ("2.50"). */
export function priceDecimal(microsPer1k: number): string {
  return decimal(microsPer1k, 3);
}

/** A spend or a budget in micro-units as the currency: two to six decimals ("0.000123"). */
export function spendDecimal(micros: number): string {
  return decimal(micros, 6);
}

/** A price given as the currency per 1M tokens ("0.15"), as kept: undefined when not one. */
export function microsPer1kOf(perMillion: string): number | undefined {
  const m = /^(\d+)(?:\.(\d{1,3}))?$/.exec(perMillion.trim());
  if (!m) return undefined;
  return Number(m[1]) * 1000 + Number((m[2] ?? "").padEnd(3, "0"));
}

const formats = new Map<string, Intl.NumberFormat>();

/** `decimalText` in the currency as `locale` writes it ("$0.10", "0,10 €"). */
function inCurrency(decimalText: string, currency: string, locale: string, most: number): string {
  const key = `${locale}|${currency}|${most}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, {
      style: "currency",
      currency,
      minimumFractionDigits: 2,
      maximumFractionDigits: most,
    });
    formats.set(key, f);
  }
  // A decimal string is formatted exactly (Intl.NumberFormat v3), with no float in between.
  return f.format(decimalText as Intl.StringNumericLiteral);
}

/** A price with its currency, per 1M tokens implied: "$2.50". */
export function formatPrice(microsPer1k: number, currency: string, locale = "en"): string {
  return inCurrency(priceDecimal(microsPer1k), currency, locale, 3);
}

/** A spend with its currency: "$0.000123". */
export function formatSpend(micros: number, currency: string, locale = "en"): string {
  return inCurrency(spendDecimal(micros), currency, locale, 6);
}

/** `n` (an integer count of 10^-places units) as decimal text, trailing zeros past two cut. */
function decimal(n: number, places: number): string {
  const sign = n < 0 ? "-" : "";
  const a = Math.abs(Math.round(n));
  const scale = 10 ** places;
  const frac = String(a % scale).padStart(places, "0").replace(/0+$/, "").padEnd(2, "0");
  return `${sign}${Math.floor(a / scale)}.${frac}`;
}
