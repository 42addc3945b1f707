/**
 * A small Prometheus registry: counters, gauges and histograms with fixed buckets, rendered in the
 * text exposition format (0.0.4). No dependency: the format is a few lines, and owning it lets the
 * gateway keep every label bounded (label values are given by the code, never by a client).
 */
export type Labels = Record<string, string>;

interface Metric {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "gauge" | "histogram";
  readonly labelNames: readonly string[];
  render(out: string[]): void;
}

const nameRe = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function labelKey(labelNames: readonly string[], labels: Labels): string {
  return labelNames.map((n) => labels[n] ?? "").join("\u0000");
}

function escapeValue(v: string): string {
  return v.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll('"', '\\"');
}

function formatLabels(names: readonly string[], values: readonly string[], extra = ""): string {
  const parts = names.map((n, i) => `${n}="${escapeValue(values[i] ?? "")}"`);
  if (extra) parts.push(extra);
  return parts.length ? `{${parts.join(",")}}` : "";
}

function formatNumber(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "+Inf";
  if (n === -Infinity) return "-Inf";
  return String(n);
}

abstract class Labelled<V> implements Metric {
  abstract readonly type: "counter" | "gauge" | "histogram";
  protected readonly series = new Map<string, { values: string[]; v: V }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {
    if (!nameRe.test(name)) throw new TypeError(`invalid metric name ${name}`);
  }
  protected get(labels: Labels, init: () => V): V {
    const key = labelKey(this.labelNames, labels);
    let s = this.series.get(key);
    if (!s) {
      s = { values: this.labelNames.map((n) => labels[n] ?? ""), v: init() };
      this.series.set(key, s);
    }
    return s.v;
  }
  /** Forgets every series (a gauge refilled at each scrape). */
  reset(): void {
    this.series.clear();
  }
  abstract render(out: string[]): void;
}

export class Counter extends Labelled<{ n: number }> {
  readonly type = "counter";
  inc(labels: Labels = {}, by = 1): void {
    if (by < 0 || !Number.isFinite(by)) return;
    this.get(labels, () => ({ n: 0 })).n += by;
  }
  value(labels: Labels = {}): number {
    return this.series.get(labelKey(this.labelNames, labels))?.v.n ?? 0;
  }
  render(out: string[]): void {
    for (const s of this.series.values()) {
      out.push(`${this.name}${formatLabels(this.labelNames, s.values)} ${formatNumber(s.v.n)}`);
    }
  }
}

export class Gauge extends Labelled<{ n: number }> {
  readonly type = "gauge";
  set(labels: Labels, value: number): void {
    this.get(labels, () => ({ n: 0 })).n = value;
  }
  inc(labels: Labels = {}, by = 1): void {
    this.get(labels, () => ({ n: 0 })).n += by;
  }
  value(labels: Labels = {}): number | undefined {
    return this.series.get(labelKey(this.labelNames, labels))?.v.n;
  }
  render(out: string[]): void {
    for (const s of this.series.values()) {
      out.push(`${this.name}${formatLabels(this.labelNames, s.values)} ${formatNumber(s.v.n)}`);
    }
  }
}

interface HistogramSeries {
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram extends Labelled<HistogramSeries> {
  readonly type = "histogram";
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly buckets: readonly number[],
  ) {
    super(name, help, labelNames);
    for (let i = 1; i < buckets.length; i++) {
      if (buckets[i]! <= buckets[i - 1]!) throw new TypeError(`${name}: buckets must increase`);
    }
  }
  observe(labels: Labels, value: number): void {
    if (!Number.isFinite(value)) return;
    const s = this.get(labels, () => ({ counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) s.counts[i]!++;
    s.sum += value;
    s.count++;
  }
  count(labels: Labels = {}): number {
    return this.series.get(labelKey(this.labelNames, labels))?.v.count ?? 0;
  }
  render(out: string[]): void {
    for (const s of this.series.values()) {
      this.buckets.forEach((b, i) => {
        out.push(
          `${this.name}_bucket${formatLabels(this.labelNames, s.values, `le="${b}"`)} ${
            s.v.counts[i]
          }`,
        );
      });
      out.push(
        `${this.name}_bucket${formatLabels(this.labelNames, s.values, 'le="+Inf"')} ${s.v.count}`,
      );
      out.push(`${this.name}_sum${formatLabels(this.labelNames, s.values)} ${s.v.sum}`);
      out.push(`${this.name}_count${formatLabels(this.labelNames, s.values)} ${s.v.count}`);
    }
  }
}

/** Run before each scrape to refill gauges read from live state. */
export type Collector = () => void | Promise<void>;

export class Registry {
  readonly #metrics = new Map<string, Metric>();
  readonly #collectors: Collector[] = [];

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.#add(new Counter(name, help, labelNames));
  }
  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return this.#add(new Gauge(name, help, labelNames));
  }
  histogram(
    name: string,
    help: string,
    labelNames: readonly string[],
    buckets: readonly number[],
  ): Histogram {
    return this.#add(new Histogram(name, help, labelNames, buckets));
  }
  collect(fn: Collector): void {
    this.#collectors.push(fn);
  }

  /** Every metric's name, type and help: the metrics list in the docs is made from this. */
  describe(): { name: string; type: string; help: string; labels: readonly string[] }[] {
    return [...this.#metrics.values()].map((m) => ({
      name: m.name,
      type: m.type,
      help: m.help,
      labels: m.labelNames,
    }));
  }

  async render(): Promise<string> {
    for (const c of this.#collectors) {
      try {
        await c();
      } catch {
        // A collector that fails leaves its gauges as they were; the scrape still answers.
      }
    }
    const out: string[] = [];
    for (const m of this.#metrics.values()) {
      out.push(`# HELP ${m.name} ${m.help.replaceAll("\\", "\\\\").replaceAll("\n", "\\n")}`);
      out.push(`# TYPE ${m.name} ${m.type}`);
      m.render(out);
    }
    return out.join("\n") + "\n";
  }

  #add<M extends Metric>(m: M): M {
    if (this.#metrics.has(m.name)) throw new TypeError(`metric ${m.name} registered twice`);
    this.#metrics.set(m.name, m);
    return m;
  }
}
