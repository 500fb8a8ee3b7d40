/**
 * Every metric and label that a dashboard panel, a template variable or an alert uses is one the
 * code exports. The exported set comes from the prom-client registrations in apps/ and libs/
 * (`registry.counter|gauge|histogram(name, help, [labels])`), prom-client's default metrics,
 * the labels every app sample carries (`app`) or a scrape adds (`job`, `instance`, and the
 * Kubernetes discovery labels), and the few external metrics deploy/README.md lists. A query
 * that groups by, matches on, or shows (`{{label}}`, `$labels.label`) a label its metrics do
 * not have — lag `by (topic)` when the gauge has `queue` and `partition` — fails here.
 */
import { readdirSync, readFileSync, statSync } from 'fs';
import { join } from 'path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..');
/** Labels Prometheus or its discovery adds to every scraped sample. */
const TARGET_LABELS = ['job', 'instance', 'namespace', 'pod', 'service', 'endpoint', 'container'];
/** Series of other exporters or of Prometheus itself, with their labels. */
const EXTERNAL: Record<string, string[]> = {
  up: [],
  kube_pod_container_status_ready: ['namespace', 'pod', 'container', 'uid'],
};
const AGGREGATIONS = 'sum|min|max|avg|count|stddev|stdvar|group|topk|bottomk|quantile|count_values';

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (['node_modules', 'test', 'lint-fixtures'].includes(name) || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (p.endsWith('.ts') && !/\.(spec|int-spec)\.ts$/.test(p)) out.push(p);
  }
  return out;
}

/** name -> label names, from the code's registrations (histograms with _bucket{le}, _sum, _count). */
function exportedByCode(): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const registration =
    /\.(counter|gauge|histogram|summary)(?:<[^>]*>)?\(\s*['"`](ostore_\w+)['"`]\s*,\s*(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`[^`]*`)\s*(?:,\s*\[([^\]]*)\])?/g;
  for (const file of [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))]) {
    for (const m of readFileSync(file, 'utf8').matchAll(registration)) {
      const labels = [...(m[3] ?? '').matchAll(/['"`](\w+)['"`]/g)].map((l) => l[1]);
      add(found, m[1], m[2], ['app', ...labels]);
    }
  }
  return found;
}

function add(into: Map<string, Set<string>>, type: string, name: string, labels: string[]) {
  const set = (n: string, extra: string[] = []) =>
    into.set(n, new Set([...(into.get(n) ?? []), ...labels, ...extra]));
  if (type === 'histogram' || type === 'summary') {
    set(`${name}_bucket`, type === 'histogram' ? ['le'] : []);
    set(`${name}_sum`);
    set(`${name}_count`);
    if (type === 'summary') set(name, ['quantile']);
  } else set(name);
}

// ---------------------------------------------------------------------------------------------
// PromQL, as far as the checks need it

const stripStrings = (e: string) => e.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""');
const labelList = (s: string) =>
  s
    .split(',')
    .map((l) => l.trim())
    .filter(Boolean);

/** Metric selectors of an expression: the name and the label names of its matchers. */
function selectors(expr: string): Array<{ name: string; labels: string[] }> {
  const e = stripStrings(expr)
    .replace(/\$\{[^}]*\}|\$\w+/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const out: Array<{ name: string; labels: string[] }> = [];
  for (const m of e.matchAll(/(?<![\w:.$])([A-Za-z_:][\w:]*)\s*(\{[^}]*\})?\s*(\()?/g)) {
    if (m[3]) continue; // a function or an aggregation
    if (/^(and|or|unless|bool|offset|inf|nan|e)$/i.test(m[1]) || /^\d/.test(m[1])) continue;
    const labels = [...(m[2] ?? '').matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g)].map((l) => l[1]);
    out.push({ name: m[1], labels });
  }
  return out;
}

/** Labels named in by/without/on/ignoring/group_x clauses. */
const groupingLabels = (expr: string) =>
  [
    ...stripStrings(expr).matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g),
  ].flatMap((m) => labelList(m[1]));

/** Splits at the top-level occurrences of a binary operator; returns the operands. */
function topLevelSplit(expr: string, op: RegExp): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < expr.length; i++) {
    const ch = expr[i];
    if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) depth--;
    else if (depth === 0) {
      const m = op.exec(expr.slice(i));
      if (m && m.index === 0 && (i === 0 || /[\s)]/.test(expr[i - 1]))) {
        parts.push(expr.slice(start, i));
        start = i + m[0].length;
        i = start - 1;
      }
    }
  }
  parts.push(expr.slice(start));
  return parts.map((p) => p.trim());
}

const unwrap = (e: string): string => {
  const t = e.trim();
  if (!t.startsWith('(')) return t;
  let depth = 0;
  for (let i = 0; i < t.length; i++) {
    if (t[i] === '(') depth++;
    else if (t[i] === ')' && --depth === 0) return i === t.length - 1 ? unwrap(t.slice(1, -1)) : t;
  }
  return t;
};

/** The labels of the series an expression returns (undefined: could not tell, so unchecked). */
function outputLabels(
  expr: string,
  labelsOf: (name: string) => Set<string> | undefined,
): Set<string> | undefined {
  const e = unwrap(stripStrings(expr).replace(/\[[^\]]*\]/g, ''));
  const ors = topLevelSplit(e, /^or\b/);
  if (ors.length > 1) {
    const sets = ors.map((o) => outputLabels(o, labelsOf));
    return sets.some((s) => !s) ? undefined : new Set(sets.flatMap((s) => [...s!]));
  }
  const left = topLevelSplit(e, /^(and|unless)\b(\s+(on|ignoring)\s*\([^)]*\))?/)[0];
  // arithmetic and comparison: the vector side (a scalar literal or time() has no labels)
  const operands = topLevelSplit(left, /^(==|!=|>=|<=|>|<|\+|-|\*|\/)(\s*bool\b)?/).filter(
    (o) => !/^(\d[\d.e+-]*|time\(\))$/.test(unwrap(o)),
  );
  if (operands.length !== 1) return operands.length ? outputLabels(operands[0], labelsOf) : new Set();
  const o = unwrap(operands[0]);
  if (o !== e && o !== operands[0].trim()) return outputLabels(o, labelsOf); // parenthesised: look inside
  const absent = /^absent\s*\(\s*[A-Za-z_:][\w:]*\s*(\{[^}]*\})?\s*\)$/.exec(o);
  if (absent) return new Set([...(absent[1] ?? '').matchAll(/(\w+)\s*=(?!~)/g)].map((m) => m[1]));
  const agg = new RegExp(`^(${AGGREGATIONS})\\s*(?:(by|without)\\s*\\(([^)]*)\\))?\\s*\\(`).exec(o);
  if (agg) {
    const trailing = /\)\s*(by|without)\s*\(([^)]*)\)\s*$/.exec(o);
    const mode = agg[2] ?? trailing?.[1];
    const list = labelList(agg[3] ?? trailing?.[2] ?? '');
    if (mode === 'by') return new Set(list);
    if (!mode) return new Set();
    return undefined;
  }
  const hq = /^histogram_quantile\s*\(\s*[\d.]+\s*,([\s\S]*)\)$/.exec(o);
  if (hq) {
    const inner = outputLabels(hq[1], labelsOf);
    if (inner) inner.delete('le');
    return inner;
  }
  const fn = /^(\w+)\s*\(([\s\S]*)\)$/.exec(o);
  if (fn && !/^(absent|vector|scalar|time|label_replace|label_join)$/.test(fn[1])) {
    return outputLabels(fn[2].split(',')[0], labelsOf);
  }
  const sel = /^([A-Za-z_:][\w:]*)\s*(\{[^}]*\})?$/.exec(o);
  if (sel) {
    const known = labelsOf(sel[1]);
    return known ? new Set([...known, ...TARGET_LABELS]) : undefined;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------

const dashboardFiles = readdirSync(join(__dirname, 'grafana/dashboards')).filter((f) => f.endsWith('.json'));
interface Query {
  where: string;
  expr: string;
  shown: string[];
}
const queries: Query[] = [];
for (const f of dashboardFiles) {
  const d = JSON.parse(readFileSync(join(__dirname, 'grafana/dashboards', f), 'utf8'));
  for (const p of d.panels ?? [])
    for (const t of p.targets ?? [])
      queries.push({
        where: `${f} "${p.title}" ${t.refId}`,
        expr: String(t.expr),
        shown: [...String(t.legendFormat ?? '').matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]),
      });
  for (const v of d.templating?.list ?? []) {
    if (v.type !== 'query') continue;
    const q = typeof v.query === 'string' ? v.query : v.query.query;
    const lv = /^\s*label_values\((.*),\s*(\w+)\s*\)\s*$/.exec(q);
    if (lv)
      queries.push({ where: `${f} variable ${v.name}`, expr: `sum by (${lv[2]}) (${lv[1]})`, shown: [] });
  }
}
const rules = parse(readFileSync(join(__dirname, 'prometheus/alerts.yaml'), 'utf8'));
for (const g of rules.groups)
  for (const r of g.rules)
    queries.push({
      where: `alert ${r.alert}`,
      expr: String(r.expr),
      shown: [...JSON.stringify(r.annotations).matchAll(/\$labels\.(\w+)/g)].map((m) => m[1]),
    });

describe('dashboard and alert queries against the metrics the code exports', () => {
  let exported: Map<string, Set<string>>;
  const labelsOf = (name: string) =>
    exported.get(name) ?? (name in EXTERNAL ? new Set(EXTERNAL[name]) : undefined);

  beforeAll(async () => {
    exported = exportedByCode();
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    for (const m of await registry.getMetricsAsJSON()) {
      const labels = new Set(['app', ...(m.values ?? []).flatMap((v: any) => Object.keys(v.labels ?? {}))]);
      add(exported, String(m.type), m.name, [...labels]);
    }
  });

  it('finds the registrations (the extractor works)', () => {
    expect([...exported.get('ostore_queue_consumer_lag_messages')!].sort()).toEqual([
      'app',
      'partition',
      'queue',
    ]);
    expect(exported.get('ostore_s3_request_duration_seconds_bucket')).toEqual(
      new Set(['app', 'operation', 'le']),
    );
    expect(exported.get('ostore_scanner_scan_duration_seconds_bucket')?.has('table')).toBe(true);
    expect(exported.size).toBeGreaterThan(40);
  });

  it('the checks catch the mistakes they are for', () => {
    exported ??= exportedByCode();
    expect(
      selectors('sum by (queue) (rate(ostore_x_total{status=~"5..", app="g"}[5m])) > 0 and on (instance) up'),
    ).toEqual([
      { name: 'ostore_x_total', labels: ['status', 'app'] },
      { name: 'up', labels: [] },
    ]);
    expect(outputLabels('sum by (topic) (ostore_queue_consumer_lag_messages) > 10000', labelsOf)).toEqual(
      new Set(['topic']),
    );
    expect(
      outputLabels(
        'histogram_quantile(0.99, sum by (le, operation) (rate(a_bucket[5m]))) > 1 and on (operation) b',
        labelsOf,
      ),
    ).toEqual(new Set(['operation']));
    expect(outputLabels('time() - max by (instance, table) (x)', labelsOf)).toEqual(
      new Set(['instance', 'table']),
    );
    expect(outputLabels('sum(rate(x[5m])) / sum(rate(y[5m])) > 0.05', labelsOf)).toEqual(new Set());
  });

  it('every metric is exported by the code, by prom-client, or is an external series', () => {
    const unknown = queries.flatMap((q) =>
      selectors(q.expr)
        .filter((s) => !labelsOf(s.name))
        .map((s) => `${q.where}: ${s.name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('every label matched on a metric is one of its labels (or a scrape label)', () => {
    const bad = queries.flatMap((q) =>
      selectors(q.expr).flatMap((s) => {
        const known = labelsOf(s.name);
        return known
          ? s.labels
              .filter((l) => !known.has(l) && !TARGET_LABELS.includes(l))
              .map((l) => `${q.where}: ${s.name}{${l}}`)
          : [];
      }),
    );
    expect(bad).toEqual([]);
  });

  it('every label grouped by or matched on exists on a metric of the query', () => {
    const bad = queries.flatMap((q) => {
      const available = new Set([
        ...TARGET_LABELS,
        ...selectors(q.expr).flatMap((s) => [...(labelsOf(s.name) ?? [])]),
      ]);
      return groupingLabels(q.expr)
        .filter((l) => !available.has(l))
        .map((l) => `${q.where}: ${l}`);
    });
    expect(bad).toEqual([]);
  });

  it('the result labels of almost every query are worked out (so the next check covers them)', () => {
    const unresolved = queries.filter((q) => !outputLabels(q.expr, labelsOf)).map((q) => q.where);
    expect(unresolved).toEqual([]);
  });

  it('every label a legend or an alert annotation shows is a label of the result', () => {
    const bad = queries.flatMap((q) => {
      const out = outputLabels(q.expr, labelsOf);
      if (!out) return [];
      return q.shown
        .filter((l) => !out.has(l))
        .map((l) => `${q.where}: {{${l}}} not in {${[...out].join(',')}}`);
    });
    expect(bad).toEqual([]);
  });
});
