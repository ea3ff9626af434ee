/**
 * Counters and histograms kept as plain numbers per label set, the label set found by its values in
 * nested Maps: prom-client's own `inc`/`observe` build a labels string and look it up in an object on
 * every call, a measurable share of a traced run. The registry reads these as it reads its own
 * metrics (`get()` in prom-client's shape), so the exposition is the same.
 */
import type { Registry } from 'prom-client';

type Labels = Record<string, string>;

interface MetricValue {
  labels: Labels;
  value: number;
  metricName?: string;
}

interface Node<C> {
  next: Map<string, Node<C>> | null;
  cell: C | null;
}

/** A metric's label sets, each made once, as a tree of their values. */
abstract class Cells<C> {
  readonly name: string;
  readonly help: string;
  readonly aggregator = 'sum';
  readonly #labelNames: readonly string[];
  #root: Node<C> = { next: null, cell: null };
  protected readonly all: C[] = [];

  constructor(registry: Registry, name: string, help: string, labelNames: readonly string[]) {
    this.name = name;
    this.help = help;
    this.#labelNames = labelNames;
    registry.registerMetric(this as never);
  }

  protected abstract make(labels: Labels): C;

  /** The cell of the label values, in the order of the label names. */
  at(...values: string[]): C {
    let node = this.#root;
    for (const v of values) {
      node.next ??= new Map();
      let child = node.next.get(v);
      if (child === undefined) {
        child = { next: null, cell: null };
        node.next.set(v, child);
      }
      node = child;
    }
    if (node.cell === null) {
      const labels: Labels = {};
      this.#labelNames.forEach((n, i) => {
        labels[n] = values[i]!;
      });
      node.cell = this.make(labels);
      this.all.push(node.cell);
    }
    return node.cell;
  }

  reset(): void {
    this.#root = { next: null, cell: null };
    this.all.length = 0;
  }
}

export class CounterCells extends Cells<{ labels: Labels; value: number }> {
  readonly type = 'counter';

  protected make(labels: Labels) {
    return { labels, value: 0 };
  }

  get(): { name: string; help: string; type: string; values: MetricValue[]; aggregator: string } {
    const values = this.all.map((c) => ({ labels: c.labels, value: c.value }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

export interface HistogramCell {
  labels: Labels;
  /** Observations per bucket (not cumulative); the last is above every bound. */
  counts: Float64Array;
  sum: number;
  count: number;
}

export class HistogramCells extends Cells<HistogramCell> {
  readonly type = 'histogram';
  readonly #bounds: readonly number[];

  constructor(
    registry: Registry,
    name: string,
    help: string,
    labelNames: readonly string[],
    bounds: readonly number[],
  ) {
    super(registry, name, help, labelNames);
    this.#bounds = bounds;
  }

  protected make(labels: Labels): HistogramCell {
    return { labels, counts: new Float64Array(this.#bounds.length + 1), sum: 0, count: 0 };
  }

  observe(cell: HistogramCell, value: number): void {
    if (!Number.isFinite(value)) return;
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    cell.counts[i]!++;
    cell.sum += value;
    cell.count++;
  }

  get(): { name: string; help: string; type: string; values: MetricValue[]; aggregator: string } {
    const values: MetricValue[] = [];
    for (const c of this.all) {
      let cumulative = 0;
      this.#bounds.forEach((bound, i) => {
        cumulative += c.counts[i]!;
        values.push({
          labels: { le: String(bound), ...c.labels },
          value: cumulative,
          metricName: `${this.name}_bucket`,
        });
      });
      values.push({ labels: { le: '+Inf', ...c.labels }, value: c.count, metricName: `${this.name}_bucket` });
      values.push({ labels: c.labels, value: c.sum, metricName: `${this.name}_sum` });
      values.push({ labels: c.labels, value: c.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}
