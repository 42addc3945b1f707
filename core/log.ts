/**
 * Logging: one JSON object per line on stderr. Callers pass fields, never secrets: keys,
 * tokens and passwords are redacted here as a last line of defence.
 */
export type Level = "debug" | "info" | "warn" | "error";
const order: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

const secretField = /(key|token|password|secret|authorization)/i;
const secretValue =
  /\b(sk-llmgw-[A-Za-z0-9_-]+|llmgw_adm_[A-Za-z0-9_-]+|llmgw_node_[A-Za-z0-9_-]+|llmgw_rep_[A-Za-z0-9_-]+|llmgwj1\.[A-Za-z0-9_-]+|Bearer\s+\S+)/g;

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (secretField.test(k) && typeof v === "string") out[k] = "[redacted]";
    else if (typeof v === "string") out[k] = v.replace(secretValue, "[redacted]");
    else if (v instanceof Error) out[k] = v.message.replace(secretValue, "[redacted]");
    else out[k] = v;
  }
  return out;
}

export function createLogger(
  opts: { level?: Level; sink?: (line: string) => void; base?: Record<string, unknown> } = {},
): Logger {
  const min = order[opts.level ?? "info"];
  const sink = opts.sink ?? ((line: string) => console.error(line));
  const base = opts.base ?? {};
  const emit = (level: Level, msg: string, fields: Record<string, unknown> = {}) => {
    if (order[level] < min) return;
    const safeMsg = msg.replace(secretValue, "[redacted]");
    sink(
      JSON.stringify({
        t: new Date().toISOString(),
        level,
        msg: safeMsg,
        ...redact({ ...base, ...fields }),
      }),
    );
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (f) => createLogger({ ...opts, base: { ...base, ...f } }),
  };
}

/** A logger that drops everything, for tests that do not look at logs. */
export const silentLogger: Logger = createLogger({ sink: () => {} });
