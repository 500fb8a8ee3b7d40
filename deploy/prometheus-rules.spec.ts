/**
 * The alert rules with Prometheus' own tool: `promtool check rules` (PromQL syntax and rule
 * structure) on deploy/prometheus/alerts.yaml and on the PrometheusRule's copy, `promtool test
 * rules` on deploy/prometheus/tests/*.test.yaml (alerts fire, or stay silent, on given series),
 * `promtool check config` on the local prometheus.yml, and a runbook section in
 * docs/runbooks.md for every alert. promtool: Debian's `prometheus` package (tools/setup.sh).
 */
import { spawnSync } from 'child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parse, stringify } from 'yaml';

const ROOT = join(__dirname, '..');
const PROM = join(__dirname, 'prometheus');

function promtool(...args: string[]): { status: number | null; out: string } {
  const r = spawnSync('promtool', args, { encoding: 'utf8', cwd: ROOT });
  if (r.error) throw new Error(`promtool not found (${r.error.message}): run tools/setup.sh`);
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const rules = parse(readFileSync(join(PROM, 'alerts.yaml'), 'utf8'));
const alerts: any[] = rules.groups.flatMap((g: any) => g.rules);

describe('deploy/prometheus with promtool', () => {
  it('alerts.yaml passes `promtool check rules`', () => {
    const r = promtool('check', 'rules', join(PROM, 'alerts.yaml'));
    expect(r.out).toContain(`SUCCESS: ${alerts.length} rules found`);
    expect(r.status).toBe(0);
  });

  it('the PrometheusRule of the Operator passes it too', () => {
    const pr = parse(readFileSync(join(__dirname, 'k8s/monitoring/prometheusrule.yaml'), 'utf8'));
    const dir = mkdtempSync(join(tmpdir(), 'ostore-rules-'));
    try {
      writeFileSync(join(dir, 'rules.yaml'), stringify({ groups: pr.spec.groups }));
      const r = promtool('check', 'rules', join(dir, 'rules.yaml'));
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('promtool check rules rejects a broken expression (the check can fail)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ostore-rules-'));
    try {
      const broken = { groups: [{ name: 'x', rules: [{ alert: 'X', expr: 'sum by (queue (up)' }] }] };
      writeFileSync(join(dir, 'rules.yaml'), stringify(broken));
      expect(promtool('check', 'rules', join(dir, 'rules.yaml')).status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(
    readdirSync(join(PROM, 'tests'))
      .filter((f) => f.endsWith('.test.yaml'))
      .map((f) => [f]),
  )('tests/%s passes `promtool test rules`', (file) => {
    const r = promtool('test', 'rules', join(PROM, 'tests', file));
    expect(r.out).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  it('prometheus.yml passes `promtool check config`', () => {
    const r = promtool('check', 'config', join(PROM, 'prometheus.yml'));
    expect(r.status).toBe(0);
  });
});

describe('what the alerts cover', () => {
  const tests = readdirSync(join(PROM, 'tests'))
    .filter((f) => f.endsWith('.test.yaml'))
    .flatMap((f) => parse(readFileSync(join(PROM, 'tests', f), 'utf8')).tests as any[]);
  const fired = new Set(
    tests.flatMap((t) => (t.alert_rule_test ?? []).filter((c: any) => c.exp_alerts?.length > 0).map((c: any) => c.alertname)),
  );

  it('every alert fires in some promtool test (so each expression is shown to match what it is for)', () => {
    expect(alerts.map((a) => a.alert).filter((name) => !fired.has(name))).toEqual([]);
  });

  it.each([
    ['an app down', ['OStoreAppDown', 'OStoreAppMissing']],
    ['an app not ready, the scanner included', ['OStoreAppUnready', 'OStoreDependencyDown']],
    ['the S3 error rate', ['OStoreS3ErrorRatioHigh']],
    ['the S3 latency', ['OStoreS3LatencyHigh']],
    ['a stalled scan (no completed pass for 2 intervals)', ['OStoreScanStalled']],
    ['a growing consumer lag', ['OStoreSchedulerConsumerLagGrowing']],
    ['growing overdue versions', ['OStoreLifecycleOverdueVersionsGrowing']],
    ['a snapshot too old', ['OStoreSnapshotTooOld']],
    ['a quota nearly full', ['OStoreBucketQuotaNearlyFull']],
    ['a saturated folder-cleanup filter', ['OStoreFolderFilterSaturated']],
    ['usage events lost', ['OStoreUsageDeltasDropped', 'OStoreUsageSpoolLeftBehind']],
    ['a usage spool that does not drain', ['OStoreUsageSpoolNotDraining']],
    ['the stats local store unbounded', ['OStoreStatsLocalCleanupNotRunning', 'OStoreStatsLocalStoreGrowing']],
  ])('the issue asks for %s: %j', (_what, names) => {
    for (const name of names) expect([name, alerts.some((a) => a.alert === name)]).toEqual([name, true]);
  });
});

describe('runbooks', () => {
  const runbook = readFileSync(join(ROOT, 'docs/runbooks.md'), 'utf8');
  const sections = [...runbook.matchAll(/^## (\S+)$/gm)].map((m) => m[1]);

  it('every alert has a runbook_url to its own section of docs/runbooks.md', () => {
    for (const a of alerts) {
      expect([a.alert, a.annotations.runbook_url]).toEqual([
        a.alert,
        `docs/runbooks.md#${a.alert.toLowerCase()}`,
      ]);
      expect(sections).toContain(a.alert);
    }
  });

  it('every runbook section belongs to an alert', () => {
    expect(sections.sort()).toEqual(alerts.map((a) => a.alert).sort());
  });
});
