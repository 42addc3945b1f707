/**
 * The OpenTelemetry SDKs' standard environment variables, read by llmgw as well: a collector
 * set up for other services works for llmgw unchanged. Each is an alias under its llmgw name
 * (`LLMGW_OTEL_ENDPOINT` and the rest win when both are set), so the settings resolve once, in
 * one place, like every other.
 */
import { ConfigError } from "../../core/settings.ts";

/** llmgw's variable, and the standard ones it falls back to, the more specific first. */
const aliases: [string, string[]][] = [
  ["LLMGW_OTEL_ENDPOINT", ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"]],
  ["LLMGW_OTEL_HEADERS", ["OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"]],
  ["LLMGW_OTEL_SERVICE_NAME", ["OTEL_SERVICE_NAME"]],
  ["LLMGW_OTEL_RESOURCE_ATTRIBUTES", ["OTEL_RESOURCE_ATTRIBUTES"]],
];

/** `env` with each llmgw OTEL variable it lacks filled from its standard alias. */
export function withOtelAliases(
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const out = { ...env };
  for (const [ours, standard] of aliases) {
    if (out[ours] !== undefined && out[ours] !== "") continue;
    const from = standard.find((k) => env[k] !== undefined && env[k] !== "");
    if (from) out[ours] = env[from];
  }
  return out;
}

/**
 * `key1=value1,key2=value2` as the OTEL spec writes headers and resource attributes: values
 * percent-decoded, blanks around keys and values dropped. A pair without `=` is refused by
 * name (never by value: a header's value is a credential).
 */
export function parseOtelPairs(text: string, setting: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(",")) {
    if (!part.trim()) continue;
    const eq = part.indexOf("=");
    const key = eq > 0 ? part.slice(0, eq).trim() : "";
    if (!key) throw new ConfigError(`${setting}: each entry must be key=value`);
    try {
      out[key] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      throw new ConfigError(`${setting}: the value of '${key}' is not valid percent-encoding`);
    }
  }
  return out;
}
