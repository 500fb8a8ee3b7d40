#!/usr/bin/env node
// Writes the generated Kubernetes objects of deploy/k8s/monitoring from their sources:
//   prometheusrule.yaml        <- deploy/prometheus/alerts.yaml (the same groups)
//   grafana/dashboards/ostore-{s3-gateway,lifecycle,usage,folder-cleanup,process-health}.json <- the overview's rows
//   grafana-dashboards.yaml    <- deploy/grafana/dashboards/*.json (ConfigMaps for Grafana's sidecar)
// Run after editing a source: `node deploy/tools/generate.mjs` (deploy specs fail while they differ).
// With --check, writes nothing and exits 1 when a generated file is out of date.
import { readdirSync, readFileSync, writeFileSync } from 'fs';
import { basename, dirname, join } from 'path';
import { fileURLToPath } from 'url';
import YAML from 'yaml';

const deploy = join(dirname(fileURLToPath(import.meta.url)), '..');
const monitoring = join(deploy, 'k8s/monitoring');
/** The label kube-prometheus-stack's Prometheus selects rules and ServiceMonitors by (its Helm release name). */
export const OPERATOR_SELECTOR = { release: 'kube-prometheus-stack' };

function prometheusRule() {
  const groups = YAML.parse(readFileSync(join(deploy, 'prometheus/alerts.yaml'), 'utf8')).groups;
  const rule = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'ostore', namespace: 'ostore', labels: { 'app.kubernetes.io/part-of': 'ostore', ...OPERATOR_SELECTOR } },
    spec: { groups },
  };
  return (
    '# GENERATED from deploy/prometheus/alerts.yaml by deploy/tools/generate.mjs: edit the source and rerun.\n' +
    '# Your Prometheus must select this object: `release: kube-prometheus-stack` is the label of\n' +
    "# kube-prometheus-stack's default ruleSelector (its Helm release name); change it to yours.\n" +
    YAML.stringify(rule, { lineWidth: 0 })
  );
}

/**
 * The focused dashboards, cut from the overview by its rows (the overview is the one source:
 * edit it, rerun). Each keeps the overview's datasource and template variables.
 */
export const FOCUSED = [
  { file: 'ostore-s3-gateway.json', title: 'OStore · S3 gateway', rows: ['S3 traffic', 'Blocks'] },
  { file: 'ostore-lifecycle.json', title: 'OStore · lifecycle pipeline (per host and partition)', rows: ['Lifecycle'] },
  { file: 'ostore-usage.json', title: 'OStore · usage', rows: ['Usage'] },
  { file: 'ostore-folder-cleanup.json', title: 'OStore · empty-directory cleanup', rows: ['Empty-directory cleanup'] },
  { file: 'ostore-process-health.json', title: 'OStore · process health', rows: ['Process', 'Readiness'] },
];

function focusedDashboards() {
  const overview = JSON.parse(readFileSync(join(deploy, 'grafana/dashboards/ostore-overview.json'), 'utf8'));
  const byRow = new Map();
  let row;
  for (const p of overview.panels) {
    if (p.type === 'row') byRow.set((row = p.title), [p]);
    else byRow.get(row).push(p);
  }
  const out = {};
  for (const f of FOCUSED) {
    const panels = [];
    let y = 0;
    for (const title of f.rows) {
      const group = byRow.get(title);
      if (!group) throw new Error(`the overview has no row ${title}`);
      const top = group[0].gridPos.y;
      for (const p of group) panels.push({ ...p, gridPos: { ...p.gridPos, y: p.gridPos.y - top + y } });
      y += Math.max(...group.map((p) => p.gridPos.y - top + p.gridPos.h));
    }
    const used = JSON.stringify(panels);
    const dashboard = {
      ...overview,
      uid: f.file.replace(/\.json$/, ''),
      title: f.title,
      description: `${f.title}: generated from ostore-overview.json by deploy/tools/generate.mjs`,
      links: [{ type: 'dashboards', tags: ['ostore'], asDropdown: true, title: 'OStore' }],
      panels,
      templating: {
        list: overview.templating.list.filter((v) => v.type === 'datasource' || used.includes(`$${v.name}`)),
      },
    };
    out[`../../grafana/dashboards/${f.file}`] = `${JSON.stringify(dashboard, null, 2)}\n`;
  }
  return out;
}

function dashboards() {
  const dir = join(deploy, 'grafana/dashboards');
  const maps = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `grafana-dashboard-${basename(f, '.json')}`,
        namespace: 'ostore',
        // Grafana's dashboard sidecar (kube-prometheus-stack: sidecar.dashboards.label) loads
        // every ConfigMap with this label, from any namespace when searchNamespace=ALL.
        labels: { 'app.kubernetes.io/part-of': 'ostore', grafana_dashboard: '1' },
        annotations: { grafana_folder: 'OStore' },
      },
      data: { [f]: readFileSync(join(dir, f), 'utf8') },
    }));
  return (
    '# GENERATED from deploy/grafana/dashboards/*.json by deploy/tools/generate.mjs: edit the source and rerun.\n' +
    maps.map((m) => YAML.stringify(m, { lineWidth: 0 })).join('---\n')
  );
}

// the focused dashboards first: the ConfigMaps hold every dashboard file
const focused = focusedDashboards();
for (const [file, text] of Object.entries(focused)) {
  const path = join(monitoring, file);
  if (!process.argv.includes('--check')) writeFileSync(path, text);
}
const outputs = { ...focused, 'prometheusrule.yaml': prometheusRule(), 'grafana-dashboards.yaml': dashboards() };
const check = process.argv.includes('--check');
let stale = 0;
for (const [file, text] of Object.entries(outputs)) {
  const path = join(monitoring, file);
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    /* not written yet */
  }
  if (current === text) continue;
  if (check) {
    console.error(`${join('deploy/k8s/monitoring', file)} is out of date: run node deploy/tools/generate.mjs`);
    stale++;
  } else writeFileSync(path, text);
}
process.exit(stale ? 1 : 0);
