/**
 * deploy/k8s/monitoring: the generated PrometheusRule and Grafana dashboard ConfigMaps match
 * their sources (deploy/tools/generate.mjs), and every object carries the label its consumer
 * selects by — the Prometheus Operator (`release`, kube-prometheus-stack's default selectors)
 * and Grafana's dashboard sidecar (`grafana_dashboard`).
 */
import { spawnSync } from 'child_process';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { parseAllDocuments } from 'yaml';

const MONITORING = join(__dirname, 'k8s/monitoring');
const objects = readdirSync(MONITORING)
  .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
  .flatMap((f) => parseAllDocuments(readFileSync(join(MONITORING, f), 'utf8')).map((d) => d.toJS()));

describe('deploy/k8s/monitoring', () => {
  it('the generated files are up to date (node deploy/tools/generate.mjs)', () => {
    const r = spawnSync('node', [join(__dirname, 'tools/generate.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('the ServiceMonitor and the PrometheusRule carry the label the Operator selects', () => {
    const operator = objects.filter((o) => o.apiVersion.startsWith('monitoring.coreos.com/'));
    expect(operator.map((o) => o.kind).sort()).toEqual(['PrometheusRule', 'ServiceMonitor']);
    for (const o of operator) expect(o.metadata.labels.release).toBe('kube-prometheus-stack');
  });

  it("one ConfigMap per dashboard, labelled for Grafana's sidecar, holding the dashboard as is", () => {
    const dir = join(__dirname, 'grafana/dashboards');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    const maps = objects.filter((o) => o.kind === 'ConfigMap');
    expect(maps).toHaveLength(files.length);
    for (const f of files) {
      const cm = maps.find((m) => f in (m.data ?? {}));
      expect(cm.metadata.labels.grafana_dashboard).toBe('1');
      expect(JSON.parse(cm.data[f])).toEqual(JSON.parse(readFileSync(join(dir, f), 'utf8')));
    }
  });

  it('the focused dashboards hold every panel of the overview once, without overlaps, under unique uids', () => {
    const dir = join(__dirname, 'grafana/dashboards');
    const read = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8'));
    const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'ostore-overview.json');
    expect(files.length).toBeGreaterThanOrEqual(4);
    const dashboards = files.map(read);
    const uids = [read('ostore-overview.json'), ...dashboards].map((d) => d.uid);
    expect(new Set(uids).size).toBe(uids.length);
    const ids = (panels: any[]) => panels.map((p) => p.id).sort((a, b) => a - b);
    expect(ids(dashboards.flatMap((d) => d.panels))).toEqual(ids(read('ostore-overview.json').panels));
    for (const d of dashboards) {
      const boxes = d.panels.map((p: any) => p.gridPos);
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++) {
          const [a, b] = [boxes[i], boxes[j]];
          const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
          expect([d.uid, d.panels[i].title, d.panels[j].title, overlap]).toEqual([
            d.uid,
            d.panels[i].title,
            d.panels[j].title,
            false,
          ]);
        }
    }
  });
});
