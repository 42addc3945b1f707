/**
 * Parsing `nvidia-smi --query-*=… --format=csv,noheader,nounits` output. Drivers differ: a value
 * may be "[N/A]", "[Not Supported]", "N/A" or blank, and every one of those means "not known", so
 * it becomes an absent field, never 0.
 */
import type { GpuInfo, GpuProcess } from "../../core/protocol/host_report.ts";

const MiB = 1024 * 1024;

/** The fields every driver knows; if these fail there is no reading at all. */
export const requiredGpuFields = [
  "index",
  "uuid",
  "name",
  "memory.total",
  "memory.used",
  "memory.free",
] as const;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Card = Mutable<GpuInfo>;

/** A field asked for separately, and where its value goes. */
export interface OptionalField {
  readonly field: string;
  apply(card: Card, value: string): void;
}

const numberInto = (set: (card: Card, n: number) => void) => (card: Card, value: string) => {
  const n = smiNumber(value);
  if (n !== undefined) set(card, n);
};
const positiveIntInto = (set: (card: Card, n: number) => void) =>
  numberInto((card, n) => {
    if (Number.isInteger(n) && n > 0) set(card, n);
  });

export const optionalGpuFields: readonly OptionalField[] = [
  {
    field: "utilization.gpu",
    apply: numberInto((c, n) => {
      if (n >= 0 && n <= 100) c.utilizationPercent = n;
    }),
  },
  { field: "temperature.gpu", apply: numberInto((c, n) => (c.temperatureC = n)) },
  {
    field: "power.draw",
    apply: numberInto((c, n) => {
      if (n >= 0) c.powerDrawW = n;
    }),
  },
  {
    field: "power.limit",
    apply: numberInto((c, n) => {
      if (n >= 0) c.powerLimitW = n;
    }),
  },
  {
    field: "compute_cap",
    apply: (c, v) => {
      const t = v.trim();
      if (/^\d+\.\d+$/.test(t)) c.computeCapability = t;
    },
  },
  { field: "pcie.link.gen.max", apply: positiveIntInto((c, n) => (c.pcieMaxGen = n)) },
  { field: "pcie.link.width.max", apply: positiveIntInto((c, n) => (c.pcieMaxWidth = n)) },
];

/** A number, or undefined for N/A, Not Supported, blank and anything else that is not one. */
export function smiNumber(value: string | undefined): number | undefined {
  const t = (value ?? "").trim();
  if (!t || !/^-?\d+(\.\d+)?$/.test(t)) return undefined;
  return Number(t);
}

/** Non-empty lines split on commas, each cell trimmed. */
export function smiRows(text: string): string[][] {
  return text.split("\n").map((l) => l.trim()).filter(Boolean).map((l) =>
    l.split(",").map((c) => c.trim())
  );
}

/** Cards from the required query; rows that do not parse are skipped, not guessed at. */
export function parseRequiredRows(text: string): GpuInfo[] {
  const out: GpuInfo[] = [];
  for (const row of smiRows(text)) {
    if (row.length < requiredGpuFields.length) continue;
    // A name with a comma in it: the three memory figures are always the last three cells.
    const [indexCell, uuid] = row;
    const [total, used, free] = row.slice(-3);
    const name = row.slice(2, -3).join(", ");
    const index = smiNumber(indexCell);
    if (index === undefined || !Number.isInteger(index) || !uuid || uuid.startsWith("[")) continue;
    const card: Card = { index, uuid, name, processes: [] };
    const t = smiNumber(total);
    if (t !== undefined) card.memoryTotalBytes = t * MiB;
    const u = smiNumber(used);
    if (u !== undefined) card.memoryUsedBytes = u * MiB;
    const f = smiNumber(free);
    if (f !== undefined) card.memoryFreeBytes = f * MiB;
    out.push(card);
  }
  return out;
}

/**
 * Applies an `index,<fields…>` query's rows to the cards, matched by index. A row with the wrong
 * number of cells is ignored whole: its cells cannot be trusted to line up.
 */
export function applyOptionalRows(
  cards: readonly GpuInfo[],
  fields: readonly OptionalField[],
  text: string,
): void {
  const byIndex = new Map(cards.map((c) => [c.index, c as Card]));
  for (const row of smiRows(text)) {
    if (row.length !== fields.length + 1) continue;
    const card = byIndex.get(smiNumber(row[0]) ?? -1);
    if (!card) continue;
    fields.forEach((f, i) => f.apply(card, row[i + 1] ?? ""));
  }
}

/** `--query-compute-apps=pid,used_memory,gpu_uuid` rows, grouped by card UUID. */
export function parseComputeApps(text: string): Map<string, GpuProcess[]> {
  const out = new Map<string, GpuProcess[]>();
  for (const row of smiRows(text)) {
    const [pidCell, usedCell, uuid] = row;
    const pid = smiNumber(pidCell);
    if (pid === undefined || !Number.isInteger(pid) || pid <= 0 || !uuid) continue;
    const used = smiNumber(usedCell);
    const proc: GpuProcess = used === undefined ? { pid } : { pid, usedMemoryBytes: used * MiB };
    const list = out.get(uuid);
    if (list) list.push(proc);
    else out.set(uuid, [proc]);
  }
  return out;
}

/** nvidia-smi's own words for a field this driver does not have. */
export function isUnknownFieldError(output: string): boolean {
  return /is not a valid field to query|Invalid combination of input arguments|unrecognized/i
    .test(output);
}
