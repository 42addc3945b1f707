/**
 * Logging: one line per event on stderr, a JSON object (`json`, the default) or logfmt
 * (`key=value` pairs, for people and tools that read that). Callers pass fields, never secrets:
 * keys, tokens and passwords are redacted here as a last line of defence. The level can change
 * while running (live settings): every logger made from one root shares its level.
 */
export type Level = "debug" | "info" | "warn" | "error";
export type LogFormat = "json" | "logfmt";
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

/** The least severe level written, shared by a root logger and its children. */
export class LevelControl {
  constructor(public level: Level = "info") {}
}

export interface LoggerOptions {
  level?: Level | LevelControl;
  format?: LogFormat;
  sink?: (line: string) => void;
  base?: Record<string, unknown>;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const control = opts.level instanceof LevelControl
    ? opts.level
    : new LevelControl(opts.level ?? "info");
  const sink = opts.sink ?? ((line: string) => console.error(line));
  const base = opts.base ?? {};
  const render = opts.format === "logfmt"
    ? logfmt
    : (o: Record<string, unknown>) => JSON.stringify(o);
  const emit = (level: Level, msg: string, fields: Record<string, unknown> = {}) => {
    if (order[level] < order[control.level]) return;
    const safeMsg = msg.replace(secretValue, "[redacted]");
    sink(render({
      t: new Date().toISOString(),
      level,
      msg: safeMsg,
      ...redact({ ...base, ...fields }),
    }));
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (f) => createLogger({ ...opts, level: control, base: { ...base, ...f } }),
  };
}

/** `key=value` pairs; values with spaces, quotes or `=` are quoted, objects are JSON. */
export function logfmt(o: Record<string, unknown>): string {
  return Object.entries(o).filter(([, v]) => v !== undefined).map(([k, v]) => {
    const s = typeof v === "string"
      ? v
      : v === null
      ? "null"
      : typeof v === "object"
      ? JSON.stringify(v)
      : String(v);
    return `${k}=${s === "" || /[\s"=\\]/.test(s) ? JSON.stringify(s) : s}`;
  }).join(" ");
}

/** A logger that drops everything, for tests that do not look at logs. */
export const silentLogger: Logger = createLogger({ sink: () => {} });
