/** The typed locale registry: error codes double as message keys. */
import { en } from "./en.ts";
import { tr } from "./tr.ts";

type Widen<T> = { [K in keyof T]: T[K] extends string ? string : Widen<T[K]> };
export type Messages = Widen<typeof en>;
export const locales = ["en", "tr"] as const;
export type Locale = (typeof locales)[number];

const registry: Record<Locale, Messages> = { en, tr };

/** Fills `{name}` parameters; an unknown parameter is left as written. */
export function format(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (k in params ? String(params[k]) : m));
}

export function errorMessage(
  code: keyof Messages["errors"],
  params: Record<string, string | number> = {},
  locale: Locale = "en",
): string {
  return format(registry[locale].errors[code], params);
}

/** The whole message set of a locale (the portal renders from it). */
export function messagesFor(locale: Locale): Messages {
  return registry[locale];
}
