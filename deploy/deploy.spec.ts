/**
 * Static checks of deploy/: Kubernetes manifests, Prometheus rules and config, Grafana dashboard
 * and provisioning, Dockerfile. Nothing here needs a cluster, Docker or Prometheus; it catches
 * the mistakes that would otherwise only show up in production: a probe on the wrong port, an
 * environment variable no app reads (a typo is silently ignored by the apps' schemas), a value
 * an app rejects at boot, a dashboard or alert on a metric that was renamed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import { builtinModules } from 'module';
import { basename, dirname, join, relative } from 'path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { loadGatewayConfig } from '../apps/gateway/src/config/gateway.config';
import { loadScannerConfig } from '../apps/scanner/src/config/scanner.config';
import { loadSchedulerConfig } from '../apps/scheduler/src/config/scheduler.config';
import { loadStatsConfig } from '../apps/stats/src/config/stats.config';

const ROOT = join(__dirname, '..');
const DEPLOY = __dirname;
const APPS = ['gateway', 'scanner', 'scheduler', 'stats'] as const;
type AppName = (typeof APPS)[number];
/** The image name the manifests use for OStore containers (kustomize rewrites it). */
const OSTORE_IMAGE = 'ostore';

const loaders: Record<
  AppName,
  (env: Record<string, string | undefined>) => { management: { port: number } }
> = {
  gateway: loadGatewayConfig,
  scanner: loadScannerConfig,
  scheduler: loadSchedulerConfig,
  stats: loadStatsConfig,
};

/** Variables of the official cassandra image: its docker-entrypoint.sh and cassandra-env.sh. */
const CASSANDRA_IMAGE_ENV = new Set([
  'CASSANDRA_CLUSTER_NAME',
  'CASSANDRA_SEEDS',
  'CASSANDRA_DC',
  'CASSANDRA_RACK',
  'CASSANDRA_ENDPOINT_SNITCH',
  'CASSANDRA_NUM_TOKENS',
  'CASSANDRA_LISTEN_ADDRESS',
  'CASSANDRA_BROADCAST_ADDRESS',
  'CASSANDRA_RPC_ADDRESS',
  'CASSANDRA_BROADCAST_RPC_ADDRESS',
  'CASSANDRA_START_RPC',
  'MAX_HEAP_SIZE',
  'HEAP_NEWSIZE',
  'JVM_OPTS',
  'JVM_EXTRA_OPTS',
  'LOCAL_JMX',
]);

/** Series Prometheus itself produces for every target, plus alert state. */
const PROMETHEUS_BUILTINS = new Set([
  'up',
  'scrape_duration_seconds',
  'scrape_samples_scraped',
  'scrape_samples_post_metric_relabeling',
  'scrape_series_added',
  'ALERTS',
  'ALERTS_FOR_STATE',
]);

// ---------------------------------------------------------------------------------------------
// files

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const read = (p: string) => readFileSync(p, 'utf8');
const rel = (p: string) => relative(ROOT, p);
const deployFiles = walk(DEPLOY);
const yamlFiles = deployFiles.filter((f) => /\.ya?ml$/.test(f));
const jsonFiles = deployFiles.filter((f) => f.endsWith('.json'));

function yamlDocs(file: string): any[] {
  const docs = parseAllDocuments(read(file));
  const list = Array.isArray(docs) ? docs : [docs];
  for (const d of list) {
    if (d.errors.length) throw new Error(`${rel(file)}: ${d.errors.map((e) => e.message).join('; ')}`);
  }
  return list.map((d) => d.toJS()).filter((d) => d !== null && d !== undefined);
}

const readme = read(join(DEPLOY, 'README.md'));

function section(md: string, heading: string): string {
  const start = md.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`deploy/README.md has no "${heading}" section`);
  const level = heading.split(' ')[0];
  const rest = md.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return next < 0 ? rest : rest.slice(0, next);
}

/** First-column backticked names of the markdown table rows in `text`. */
function tableNames(text: string): string[] {
  return [...text.matchAll(/^\|\s*`([A-Za-z_:][A-Za-z0-9_:]*)`\s*\|/gm)].map((m) => m[1]);
}

// ---------------------------------------------------------------------------------------------
// what the apps know: env variables from the config schemas (as text), metric names from sources

const baseConfigText = read(join(ROOT, 'libs/shared/runtime/src/base-config.ts'));

function schemaKeys(text: string): string[] {
  return [...text.matchAll(/^\s+([A-Z][A-Z0-9_]*)\s*:/gm)].map((m) => m[1]);
}

function appConfigText(app: AppName): string {
  const dir = join(ROOT, 'apps', app, 'src/config');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.config.ts'))
    .map((f) => read(join(dir, f)))
    .join('\n');
}

const envContract = tableNames(section(readme, '## Environment contract')).map((name) => {
  const row = section(readme, '## Environment contract')
    .split('\n')
    .find((l) => l.startsWith(`| \`${name}\``))!;
  const apps = row.split('|')[2].trim();
  return { name, apps: apps === 'all' ? [...APPS] : apps.split(',').map((a) => a.trim()) };
});

function knownEnv(app: AppName): Set<string> {
  return new Set([
    ...schemaKeys(baseConfigText),
    ...schemaKeys(appConfigText(app)),
    ...envContract.filter((c) => c.apps.includes(app)).map((c) => c.name),
  ]);
}

function defaultManagementPort(app: AppName): number {
  const m = /MANAGEMENT_PORT:\s*envVar\.port\((\d+)\)/.exec(appConfigText(app));
  if (!m) throw new Error(`apps/${app}: no MANAGEMENT_PORT default found`);
  return Number(m[1]);
}

const defaultShutdownMs = Number(/SHUTDOWN_TIMEOUT_MS:\s*envVar\.int\((\d+)/.exec(baseConfigText)![1]);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'test' || name === 'lint-fixtures' || name.startsWith('.'))
      continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (p.endsWith('.ts') && !/\.(spec|int-spec)\.ts$/.test(p)) out.push(p);
  }
  return out;
}

const sourceLiterals = new Set<string>();
for (const f of [...sourceFiles(join(ROOT, 'apps')), ...sourceFiles(join(ROOT, 'libs'))]) {
  for (const m of read(f).matchAll(/['"`]([a-zA-Z_:][a-zA-Z0-9_:]*)['"`]/g)) sourceLiterals.add(m[1]);
}

const metricContract = tableNames(section(readme, '## Metric contract')).filter((n) =>
  n.startsWith('ostore_'),
);
const externalMetrics = tableNames(section(readme, '### External metrics'));

// ---------------------------------------------------------------------------------------------
// PromQL: metric names of an expression

const PROMQL_KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
  'Inf',
  'NaN',
  'atan2',
  'start',
  'end',
]);

function promqlMetricNames(expr: string): string[] {
  let e = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""') // string literals
    .replace(/\$\{[^}]*\}|\$\w+/g, '') // Grafana variables
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\[[^\]]*\]/g, ''); // ranges and subqueries
  e = e.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const m of e.matchAll(/(?<![A-Za-z0-9_:.])[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const after = e.slice(m.index! + m[0].length).trimStart();
    if (after.startsWith('(')) continue; // function or aggregation
    if (PROMQL_KEYWORDS.has(m[0])) continue;
    names.push(m[0]);
  }
  return names;
}

/** Metric names of a Grafana template variable query (`label_values(metric, label)`, `query_result(...)`). */
function variableQueryMetricNames(query: string): string[] {
  const lv = /^\s*label_values\((.*)\)\s*$/.exec(query);
  if (lv) {
    const args = lv[1];
    const comma = args.lastIndexOf(',');
    return comma < 0 ? [] : promqlMetricNames(args.slice(0, comma));
  }
  const qr = /^\s*query_result\((.*)\)\s*$/.exec(query);
  if (qr) return promqlMetricNames(qr[1]);
  if (/^\s*(label_names|metrics)\(/.test(query)) return [];
  return promqlMetricNames(query);
}

// ---------------------------------------------------------------------------------------------
// Kubernetes objects

const k8sDir = join(DEPLOY, 'k8s');
// the base and monitoring/ (overlays hold patches: k8s-overlays.spec.ts checks what they render)
const k8sFiles = yamlFiles.filter(
  (f) => f.startsWith(k8sDir) && !f.includes('/overlays/') && basename(f) !== 'kustomization.yaml',
);
const objects = k8sFiles.flatMap((file) => yamlDocs(file).map((obj) => ({ file, obj })));
const byKind = (kind: string) => objects.filter((o) => o.obj.kind === kind).map((o) => o.obj);
const named = (kind: string, name: string) => {
  const found = byKind(kind).find((o) => o.metadata?.name === name);
  if (!found) throw new Error(`no ${kind}/${name} in deploy/k8s`);
  return found;
};

const configMaps = new Map<string, Record<string, string>>(
  byKind('ConfigMap').map((c) => [c.metadata.name, c.data ?? {}]),
);
const secrets = new Map<string, Record<string, string>>(
  byKind('Secret').map((s) => [
    s.metadata.name,
    {
      ...Object.fromEntries(
        Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString()]),
      ),
      ...(s.stringData ?? {}),
    },
  ]),
);
const sharedEnv = configMaps.get('ostore-env');

interface ContainerRef {
  workload: any;
  pod: any;
  container: any;
}

const workloads = [...byKind('Deployment'), ...byKind('StatefulSet')];
const containers: ContainerRef[] = workloads.flatMap((w) =>
  (w.spec.template.spec.containers as any[]).map((container) => ({
    workload: w,
    pod: w.spec.template,
    container,
  })),
);
const ostoreContainers = containers.filter((c) => c.container.image === OSTORE_IMAGE);
const label = (c: ContainerRef) =>
  `${c.workload.kind}/${c.workload.metadata.name} container ${c.container.name}`;

const envOf = (c: any, name: string) => (c.env as any[] | undefined)?.find((e) => e.name === name);

/** The environment a container would see (envFrom first, then env), with the secret/field values resolved. */
function resolvedEnv(ref: ContainerRef): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of ref.container.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, configMaps.get(from.configMapRef.name) ?? {});
    if (from.secretRef) Object.assign(env, secrets.get(from.secretRef.name) ?? {});
  }
  for (const e of ref.container.env ?? []) {
    if (e.value !== undefined) env[e.name] = String(e.value);
    else if (e.valueFrom?.secretKeyRef) {
      const v = secrets.get(e.valueFrom.secretKeyRef.name)?.[e.valueFrom.secretKeyRef.key];
      if (v !== undefined) env[e.name] = v;
    } else if (e.valueFrom?.configMapKeyRef) {
      const v = configMaps.get(e.valueFrom.configMapKeyRef.name)?.[e.valueFrom.configMapKeyRef.key];
      if (v !== undefined) env[e.name] = v;
    } else if (e.valueFrom?.fieldRef) {
      env[e.name] = /pod-index/.test(e.valueFrom.fieldRef.fieldPath)
        ? '0'
        : `${ref.workload.metadata.name}-0`;
    }
  }
  return env;
}

/** Every variable name a container gets, with where it comes from. */
function envNames(ref: ContainerRef): Array<{ name: string; from: string }> {
  const names: Array<{ name: string; from: string }> = [];
  for (const from of ref.container.envFrom ?? []) {
    if (from.configMapRef) {
      const cm = configMaps.get(from.configMapRef.name);
      if (!cm)
        throw new Error(`${label(ref)}: envFrom ConfigMap ${from.configMapRef.name} is not in deploy/k8s`);
      names.push(...Object.keys(cm).map((name) => ({ name, from: `ConfigMap ${from.configMapRef.name}` })));
    }
    if (from.secretRef) {
      const s = secrets.get(from.secretRef.name);
      if (!s) throw new Error(`${label(ref)}: envFrom Secret ${from.secretRef.name} is not in deploy/k8s`);
      names.push(...Object.keys(s).map((name) => ({ name, from: `Secret ${from.secretRef.name}` })));
    }
  }
  names.push(...((ref.container.env as any[]) ?? []).map((e) => ({ name: e.name as string, from: 'env' })));
  return names;
}

function preStopSleepSeconds(c: any): number {
  const cmd: string[] | undefined = c.lifecycle?.preStop?.exec?.command;
  if (cmd && cmd[0] === 'sleep') return Number(cmd[1]);
  if (c.lifecycle?.preStop?.sleep) return Number(c.lifecycle.preStop.sleep.seconds);
  return 0;
}

const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

// ---------------------------------------------------------------------------------------------

describe('deploy/: every YAML and JSON file parses', () => {
  it('finds the expected files', () => {
    const expected = [
      'docker/Dockerfile',
      'k8s/base/kustomization.yaml',
      'k8s/monitoring/servicemonitor.yaml',
      'prometheus/alerts.yaml',
      'prometheus/prometheus.yml',
      'grafana/dashboards/ostore-overview.json',
    ];
    for (const f of expected) expect(existsSync(join(DEPLOY, f))).toBe(true);
    expect(yamlFiles.length).toBeGreaterThan(10);
  });

  it.each(yamlFiles.map((f) => [rel(f), f]))('%s is valid YAML', (_name, file) => {
    expect(yamlDocs(file).length).toBeGreaterThan(0);
  });

  it.each(jsonFiles.map((f) => [rel(f), f]))('%s is valid JSON', (_name, file) => {
    expect(() => JSON.parse(read(file))).not.toThrow();
  });
});

describe('deploy/k8s kustomizations', () => {
  const kustomizations = yamlFiles.filter((f) => basename(f) === 'kustomization.yaml' && !f.includes('/overlays/'));

  it.each(kustomizations.map((f) => [rel(f), f]))(
    '%s lists exactly the manifests beside it',
    (_name, file) => {
      const k = yamlDocs(file)[0];
      const dir = dirname(file);
      const beside = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml');
      expect([...k.resources].sort()).toEqual(beside.sort());
      expect(k.namespace).toBe('ostore');
    },
  );

  it('every object is a known kind with a name; namespaced objects of the monitoring dir carry the namespace', () => {
    for (const { file, obj } of objects) {
      expect(typeof obj.apiVersion).toBe('string');
      expect(typeof obj.kind).toBe('string');
      expect(typeof obj.metadata?.name).toBe('string');
      if (file.includes('/monitoring/')) expect(obj.metadata.namespace).toBe('ostore');
    }
    expect(named('Namespace', 'ostore')).toBeDefined();
  });

  it('the base image name is the one the kustomization rewrites', () => {
    const k = yamlDocs(join(k8sDir, 'base/kustomization.yaml'))[0];
    expect(k.images.map((i: any) => i.name)).toContain(OSTORE_IMAGE);
    expect(ostoreContainers.length).toBe(4);
  });
});

describe('OStore containers', () => {
  it('there is exactly one container per app', () => {
    expect(ostoreContainers.map((c) => c.container.name).sort()).toEqual([...APPS].sort());
    for (const c of containers) {
      const known = c.container.image === OSTORE_IMAGE || /^cassandra:/.test(c.container.image);
      if (!known) throw new Error(`${label(c)}: unexpected image ${c.container.image}`);
    }
  });

  describe.each(ostoreContainers.map((c) => [label(c), c] as const))('%s', (_name, ref) => {
    const app = ref.container.name as AppName;
    const port = defaultManagementPort(app);
    const c = ref.container;

    it('runs its own app (APP = container name, apps/<app>/src/main.ts exists)', () => {
      expect(APPS).toContain(app);
      expect(envOf(c, 'APP')?.value).toBe(app);
      expect(existsSync(join(ROOT, 'apps', app, 'src/main.ts'))).toBe(true);
    });

    it(`serves probes on its management port ${port}`, () => {
      expect(envOf(c, 'MANAGEMENT_PORT')?.value ?? String(port)).toBe(String(port));
      expect(c.ports.map((p: any) => p.containerPort)).toContain(port);
      expect(c.livenessProbe.httpGet).toEqual({ path: '/health/live', port });
      // the scanner sidecar must not gate its Cassandra pod's readiness (k8s-overlays.spec.ts)
      if (app === 'scanner') return;
      expect(c.readinessProbe.httpGet).toEqual({ path: '/health/ready', port });
      expect(c.startupProbe.httpGet).toEqual({ path: '/health/live', port });
    });

    it('has Prometheus scrape annotations for that port', () => {
      const a = ref.pod.metadata.annotations;
      expect(a['prometheus.io/scrape']).toBe('true');
      expect(a['prometheus.io/port']).toBe(String(port));
      expect(a['prometheus.io/path']).toBe('/metrics');
      expect(a['ostore.io/app']).toBe(app);
    });

    it("gets only variables the app's config schema knows (or the documented environment contract)", () => {
      const known = knownEnv(app);
      const unknown = envNames(ref).filter((e) => !known.has(e.name));
      expect(unknown).toEqual([]);
    });

    it("passes the app's real config loader", () => {
      const env = resolvedEnv(ref);
      const config = loaders[app](env);
      expect(config.management.port).toBe(port);
    });

    it('shuts down within the grace period (preStop + SHUTDOWN_TIMEOUT_MS < terminationGracePeriodSeconds)', () => {
      const grace = ref.pod.spec.terminationGracePeriodSeconds ?? 30;
      const shutdownMs = Number(resolvedEnv(ref).SHUTDOWN_TIMEOUT_MS ?? defaultShutdownMs);
      expect(preStopSleepSeconds(c) + shutdownMs / 1000).toBeLessThan(grace);
    });

    it('runs as non-root with a read-only root filesystem, /tmp writable, resources set', () => {
      const podSec = ref.pod.spec.securityContext ?? {};
      expect(c.securityContext?.runAsNonRoot ?? podSec.runAsNonRoot).toBe(true);
      expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
      expect(c.securityContext.allowPrivilegeEscalation).toBe(false);
      expect(c.volumeMounts.some((m: any) => m.mountPath === '/tmp')).toBe(true);
      expect(c.resources.requests.cpu).toBeDefined();
      expect(c.resources.requests.memory).toBeDefined();
      expect(c.resources.limits.memory).toBeDefined();
    });
  });

  it('the shared ConfigMap holds the base variables every app knows, with the production values', () => {
    expect(sharedEnv).toBeDefined();
    const base = new Set(schemaKeys(baseConfigText));
    expect(Object.keys(sharedEnv!).filter((k) => !base.has(k))).toEqual([]);
    for (const k of [
      'OSTORE_CLUSTER',
      'CASSANDRA_CONTACT_POINTS',
      'CASSANDRA_LOCAL_DC',
      'CASSANDRA_KEYSPACE',
      'CASSANDRA_REPLICATION',
      'KAFKA_BROKERS',
      'KAFKA_TOPIC_PARTITIONS',
    ]) {
      expect(sharedEnv![k]).toBeTruthy();
    }
    expect(sharedEnv!.CASSANDRA_REPLICATION).toBe('NetworkTopologyStrategy:dc1=3');
  });

  it('no Secret in the base (credentials are references only); only the gateway reads ADMIN_TOKEN', () => {
    expect([...secrets.keys()]).toEqual([]);
    for (const ref of containers) {
      const reads = envNames(ref).some((e) => e.name === 'ADMIN_TOKEN');
      expect([label(ref), reads]).toEqual([label(ref), ref.container.name === 'gateway']);
    }
  });
});

describe('workloads', () => {
  const partitions = Number(sharedEnv?.KAFKA_TOPIC_PARTITIONS);

  it('gateway: 3 replicas, Cassandra block store, 30 s grace with a preStop drain sleep, Service 9000, PDB, CPU HPA', () => {
    const d = named('Deployment', 'gateway');
    const c = d.spec.template.spec.containers[0];
    expect(d.spec.replicas).toBeUndefined(); // the HPA owns them
    expect(envOf(c, 'BLOCK_STORE').value).toBe('cassandra');
    expect(d.spec.template.spec.terminationGracePeriodSeconds).toBe(30);
    expect(preStopSleepSeconds(c)).toBeGreaterThan(0);
    expect(c.ports.find((p: any) => p.containerPort === 9000)).toBeDefined();

    const svc = named('Service', 'gateway');
    expect(matches(svc.spec.selector, d.spec.template.metadata.labels)).toBe(true);
    const s3 = svc.spec.ports.find((p: any) => p.port === 9000);
    expect(
      c.ports.find((p: any) => p.name === s3.targetPort || p.containerPort === s3.targetPort)?.containerPort,
    ).toBe(9000);

    const pdb = byKind('PodDisruptionBudget').find((p) =>
      matches(p.spec.selector.matchLabels, d.spec.template.metadata.labels),
    );
    expect(pdb).toBeDefined();
    const hpa = named('HorizontalPodAutoscaler', 'gateway');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'gateway' });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(3);
    expect(hpa.spec.metrics.some((m: any) => m.resource?.name === 'cpu')).toBe(true);
  });

  it('scheduler: 3 replicas, never more than the Kafka partitions', () => {
    const d = named('Deployment', 'scheduler');
    expect(d.spec.replicas).toBe(3);
    expect(d.spec.replicas).toBeLessThanOrEqual(partitions);
  });

  it('stats: a StatefulSet within the Kafka partitions', () => {
    const d = named('StatefulSet', 'stats');
    expect(d.spec.replicas).toBeGreaterThanOrEqual(1);
    expect(d.spec.replicas).toBeLessThanOrEqual(partitions);
  });

  it('every Deployment/StatefulSet selector matches its pod template labels', () => {
    for (const w of workloads)
      expect(matches(w.spec.selector.matchLabels, w.spec.template.metadata.labels)).toBe(true);
  });

  describe('Cassandra StatefulSet with the scanner sidecar', () => {
    const sts = named('StatefulSet', 'cassandra');
    const cassandra = (sts.spec.template.spec.containers as any[]).find((c) => c.name === 'cassandra');
    const scanner = (sts.spec.template.spec.containers as any[]).find((c) => c.name === 'scanner');

    it('runs cassandra:5.0.9 x3 behind a headless Service, with persistent volumes', () => {
      expect(cassandra.image).toBe('cassandra:5.0.9');
      expect(sts.spec.replicas).toBe(3);
      const svc = named('Service', sts.spec.serviceName);
      expect(svc.spec.clusterIP).toBe('None');
      expect(matches(svc.spec.selector, sts.spec.template.metadata.labels)).toBe(true);
      expect(sts.spec.volumeClaimTemplates.length).toBeGreaterThan(0);
      const claim = sts.spec.volumeClaimTemplates[0].metadata.name;
      expect(cassandra.volumeMounts.find((m: any) => m.name === claim).mountPath).toBe('/var/lib/cassandra');
    });

    it('uses only the image variables, a heap set as a pair, and the datacenter the apps expect', () => {
      const names = (cassandra.env as any[]).map((e) => e.name);
      expect(names.filter((n) => !CASSANDRA_IMAGE_ENV.has(n))).toEqual([]);
      expect(names).toEqual(expect.arrayContaining(['MAX_HEAP_SIZE', 'HEAP_NEWSIZE']));
      const dc = envOf(cassandra, 'CASSANDRA_DC').value;
      expect(dc).toBe(sharedEnv!.CASSANDRA_LOCAL_DC);
      const rf = Number(new RegExp(`(?:^|[:,])${dc}=(\\d+)`).exec(sharedEnv!.CASSANDRA_REPLICATION)![1]);
      expect(sts.spec.replicas).toBeGreaterThanOrEqual(rf);
      expect(envOf(cassandra, 'CASSANDRA_ENDPOINT_SNITCH').value).toBe('GossipingPropertyFileSnitch');
    });

    it('contact points name the StatefulSet pods; one Kafka partition per Cassandra node', () => {
      const points = sharedEnv!.CASSANDRA_CONTACT_POINTS.split(',');
      expect(points).toEqual(
        [...Array(sts.spec.replicas).keys()].map((i) => `cassandra-${i}.${sts.spec.serviceName}.ostore.svc`),
      );
      expect(partitions).toBe(sts.spec.replicas);
    });

    it('the scanner reads its own node and knows its host index from the pod', () => {
      expect(scanner.image).toBe(OSTORE_IMAGE);
      expect(envOf(scanner, 'CASSANDRA_CONTACT_POINTS').value).toBe('127.0.0.1');
      expect(envOf(scanner, 'MIGRATE_ON_START').value).toBe('false');
      const idx = envOf(scanner, 'SCANNER_HOST_INDEX');
      expect(idx.valueFrom.fieldRef.fieldPath).toBe("metadata.labels['apps.kubernetes.io/pod-index']");
    });

    it('Cassandra has readiness on CQL, a drain on stop, and a PDB of one', () => {
      expect(cassandra.readinessProbe.tcpSocket.port).toBe(9042);
      expect(cassandra.lifecycle.preStop.exec.command).toEqual(['nodetool', 'drain']);
      const pdb = byKind('PodDisruptionBudget').find((p) =>
        matches(p.spec.selector.matchLabels, sts.spec.template.metadata.labels),
      );
      expect(pdb.spec.maxUnavailable).toBe(1);
    });
  });
});

describe('ServiceMonitor and management Services', () => {
  const sm = named('ServiceMonitor', 'ostore');
  const selected = byKind('Service').filter((s) => matches(sm.spec.selector.matchLabels, s.metadata.labels));

  it('selects one management Service per app, whose job label is the app name', () => {
    expect(selected.map((s) => s.metadata.labels[sm.spec.jobLabel]).sort()).toEqual([...APPS].sort());
  });

  it.each(APPS.map((a) => [a]))(
    'the %s management Service reaches the app container on its management port',
    (app) => {
      const svc = selected.find((s) => s.metadata.labels[sm.spec.jobLabel] === app)!;
      const port = svc.spec.ports.find((p: any) => p.name === sm.spec.endpoints[0].port);
      expect(port.port).toBe(defaultManagementPort(app as AppName));
      const pods = ostoreContainers.filter((c) => matches(svc.spec.selector, c.pod.metadata.labels));
      expect(pods.map((c) => c.container.name)).toEqual([app]);
      expect(pods[0].container.ports.map((p: any) => p.containerPort)).toContain(port.targetPort);
    },
  );
});

describe('the Dockerfile', () => {
  const dockerfile = read(join(DEPLOY, 'docker/Dockerfile'));
  /** The lines of one build stage, from its FROM to the next FROM. */
  const stage = (name: string): string => {
    const start = dockerfile.search(new RegExp(`^FROM .* AS ${name}$`, 'm'));
    if (start < 0) throw new Error(`deploy/docker/Dockerfile has no stage ${name}`);
    const next = dockerfile.slice(start + 1).search(/^FROM /m);
    return next < 0 ? dockerfile.slice(start) : dockerfile.slice(start, start + 1 + next);
  };
  it('builds on node:24-slim, runs the compiled app as non-root under tini', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-slim$/m);
    expect(dockerfile).toMatch(/^FROM \$\{NODE_IMAGE\} AS runtime$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m);
    expect(dockerfile).toContain(
      'CMD ["sh", "-c", "exec node --enable-source-maps \\"dist/apps/${APP}/src/main.js\\""]',
    );
    const instructions = dockerfile.split('\n').filter((l) => !l.startsWith('#'));
    expect(instructions.filter((l) => /@swc-node\/register|\.ts\b/.test(l))).toEqual([]);
  });

  it('compiles with `npm run build` (tools/build/build.mjs) after the type check', () => {
    const pkg = JSON.parse(read(join(ROOT, 'package.json')));
    expect(pkg.scripts.build).toBe('node tools/build/build.mjs');
    expect(existsSync(join(ROOT, 'tools/build/build.mjs'))).toBe(true);
    const build = stage('build');
    expect(build).toMatch(/^FROM deps AS build$/m);
    expect(build.indexOf('npx tsc -p tsconfig.json')).toBeGreaterThan(0);
    expect(build.indexOf('RUN npm run build')).toBeGreaterThan(build.indexOf('npx tsc -p tsconfig.json'));
  });

  it('the runtime gets production dependencies only, from their own stage, and dist/', () => {
    const prod = stage('prod-deps');
    expect(prod).toMatch(/^FROM \$\{NODE_IMAGE\} AS prod-deps$/m);
    expect(prod).toContain('COPY package.json package-lock.json ./');
    expect(prod).toMatch(/^RUN npm ci --omit=dev --ignore-scripts\b/m);
    const runtime = stage('runtime');
    expect(runtime).toContain('COPY --from=prod-deps --chown=root:root /app/node_modules ./node_modules');
    expect(runtime).toContain('COPY --from=build --chown=root:root /app/dist ./dist');
    // from the build stage only dist/: no sources, not its node_modules with the devDependencies
    for (const line of runtime.split('\n').filter((l) => l.startsWith('COPY --from=build'))) {
      expect(line).toBe('COPY --from=build --chown=root:root /app/dist ./dist');
    }
  });

  it('dist/ is built inside the image, never sent from the host', () => {
    const ignore = read(join(DEPLOY, 'docker/Dockerfile.dockerignore'))
      .split('\n')
      .map((l) => l.trim());
    expect(ignore).toContain('dist');
  });

  it.each(APPS.map((a) => [a]))(
    'APP=%s: the CMD runs the file the build compiles from apps/<app>/src/main.ts',
    (app) => {
      const entry = /exec node --enable-source-maps \\"(dist\/[^"\\]+\.js)\\"/.exec(dockerfile)![1];
      const js = entry.replace('${APP}', app);
      expect(js).toBe(`dist/apps/${app}/src/main.js`);
      // tools/build/build.mjs mirrors apps/ and libs/ under dist/, .ts -> .js
      expect(existsSync(join(ROOT, js.replace(/^dist\//, '').replace(/\.js$/, '.ts')))).toBe(true);
    },
  );
});

describe('runtime dependencies of the image', () => {
  /**
   * The packages the production code imports, found by following the imports from each entry
   * the image runs (relative paths and the tsconfig @ostore/* aliases): the runtime stage has
   * only `dependencies`, so one of these in `devDependencies` fails with "Cannot find module"
   * in production while every test (full node_modules) passes. Type-only imports are skipped;
   * an import used only as a type is counted (stricter than the compiled output).
   */
  const paths: Record<string, string[]> = JSON.parse(read(join(ROOT, 'tsconfig.base.json'))).compilerOptions
    .paths;
  const builtins = new Set(builtinModules);
  const pkg = JSON.parse(read(join(ROOT, 'package.json')));

  function resolveTs(from: string, spec: string): string | undefined {
    const base = spec.startsWith('.') ? join(dirname(from), spec) : paths[spec] && join(ROOT, paths[spec][0]);
    if (!base) return undefined;
    return [base, `${base}.ts`, join(base, 'index.ts')].find((f) => existsSync(f) && statSync(f).isFile());
  }

  function packagesOf(entries: string[]): Map<string, string> {
    const seen = new Set<string>();
    const packages = new Map<string, string>(); // package -> first importing file
    const queue = entries.map((e) => join(ROOT, e));
    for (let file = queue.shift(); file; file = queue.shift()) {
      if (seen.has(file)) continue;
      seen.add(file);
      const text = read(file);
      const specs = [
        ...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm),
        ...text.matchAll(/\b(?:require|import)\(\s*['"]([^'"]+)['"]\s*\)/g),
      ].map((m) => m[1]);
      for (const spec of specs) {
        if (spec.startsWith('.') || spec.startsWith('@ostore/')) {
          const target = resolveTs(file, spec);
          if (!target) throw new Error(`${rel(file)}: cannot resolve ${spec}`);
          queue.push(target);
          continue;
        }
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        if (spec.startsWith('node:') || builtins.has(name)) continue;
        if (!packages.has(name)) packages.set(name, rel(file));
      }
    }
    return packages;
  }

  const entries = [...APPS.map((a) => `apps/${a}/src/main.ts`), 'libs/shared/runtime/src/cli/migrate.ts'];
  const used = packagesOf(entries);

  it('finds the packages the apps import (the walk follows relative imports and @ostore aliases)', () => {
    for (const p of ['@nestjs/common', '@nestjs/core', 'cassandra-driver', 'kafkajs', 'zod', 'prom-client'])
      expect([p, used.has(p)]).toEqual([p, true]);
    // spec-only helpers compiled into dist/ but never imported by an entry are not counted
    expect(used.has('@aws-sdk/client-s3')).toBe(false);
  });

  it('every package imported from an entry the image runs is in "dependencies"', () => {
    const missing = [...used]
      .filter(([name]) => !(name in pkg.dependencies))
      .map(([name, file]) => `${name} (imported by ${file})`);
    expect(missing).toEqual([]);
  });

  it('@nestjs/core loads @nestjs/platform-express for NestFactory.create: it is a dependency too', () => {
    expect(pkg.dependencies['@nestjs/platform-express']).toBeDefined();
  });
});

describe('declared dependencies', () => {
  /**
   * The other direction of "imported means declared": a package in package.json that nothing
   * uses is dead weight in every install (and, in `dependencies`, in the production image). A
   * package counts as used when a source, spec, tool or config file imports or requires it
   * (type-only imports included), or a package.json script runs one of its binaries or preloads
   * it (`-r`). `@types/<name>` is used when `<name>` is (`@types/node`: when a builtin is).
   */
  const pkg = JSON.parse(read(join(ROOT, 'package.json')));
  const declared: string[] = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)];

  /** Used, but not in a way the checks below can see. Every entry says how. */
  const USED_OTHERWISE: Record<string, string> = {
    '@nestjs/platform-express': 'loaded by @nestjs/core for NestFactory.create (checked above)',
    '@swc/jest': "jest.config.js's transform (a string in a config object)",
  };

  const IGNORED_DIRS = new Set(['node_modules', 'dist', 'tmp', 'lint-fixtures']);
  function codeFiles(dir: string, out: string[] = []): string[] {
    for (const name of readdirSync(dir)) {
      if (IGNORED_DIRS.has(name) || name.startsWith('.')) continue;
      const p = join(dir, name);
      if (statSync(p).isDirectory()) codeFiles(p, out);
      else if (/\.(ts|js|mjs|cjs)$/.test(p)) out.push(p);
    }
    return out;
  }

  const imported = new Set<string>();
  for (const file of codeFiles(ROOT)) {
    const text = read(file);
    const specs = [
      ...text.matchAll(/^\s*(?:import|export)\s+(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm),
      ...text.matchAll(/\b(?:require|import)\(\s*['"]([^'"]+)['"]\s*\)/g),
    ].map((m) => m[1]);
    for (const spec of specs) {
      if (spec.startsWith('.') || spec.startsWith('/')) continue;
      imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  }
  const scripts = Object.values(pkg.scripts as Record<string, string>).join('\n');
  const words = new Set(scripts.split(/[\s;&|()"]+/));
  const preloaded = new Set([...scripts.matchAll(/(?:^|\s)-r\s+(\S+)/g)].map((m) => m[1]));
  const builtinUsed = [...imported].some((name) => name.startsWith('node:') || builtinModules.includes(name));

  function binsOf(name: string): string[] {
    const manifest = JSON.parse(read(join(ROOT, 'node_modules', name, 'package.json')));
    if (typeof manifest.bin === 'string') return [manifest.name.split('/').pop()];
    return Object.keys(manifest.bin ?? {});
  }

  function isUsed(name: string): boolean {
    if (imported.has(name) || preloaded.has(name)) return true;
    if (name.startsWith('@types/')) {
      const typed = name.slice('@types/'.length);
      return typed === 'node' ? builtinUsed : isUsed(typed);
    }
    return binsOf(name).some((bin) => words.has(bin));
  }

  it('finds uses of each kind (imports, script binaries, preloads, @types)', () => {
    expect(['@nestjs/common', 'yaml', 'typescript', '@swc-node/register', '@types/jest'].map(isUsed)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(isUsed('@nestjs/platform-express')).toBe(false); // hence its entry in USED_OTHERWISE
  });

  it('every declared package is used somewhere (or says in USED_OTHERWISE how it is)', () => {
    const unused = declared.filter((name) => !(name in USED_OTHERWISE) && !isUsed(name));
    expect(unused).toEqual([]);
  });

  it('USED_OTHERWISE names only declared packages that the checks cannot see', () => {
    for (const name of Object.keys(USED_OTHERWISE)) {
      expect([name, declared.includes(name), isUsed(name)]).toEqual([name, true, false]);
    }
  });

  it('a package used only by specs and tools is a devDependency', () => {
    expect(pkg.devDependencies['@aws-crypto/crc32c']).toBeDefined();
    expect(pkg.dependencies['@aws-crypto/crc32c']).toBeUndefined();
  });
});

describe('metric names in alerts and dashboards', () => {
  let allowed: (name: string) => boolean;

  beforeAll(async () => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const defaults = new Set<string>();
    for (const m of await registry.getMetricsAsJSON()) {
      defaults.add(m.name);
      if (String(m.type) === 'histogram' || String(m.type) === 'summary') {
        for (const s of ['_bucket', '_sum', '_count']) defaults.add(m.name + s);
      }
    }
    const known = (n: string) =>
      defaults.has(n) ||
      PROMETHEUS_BUILTINS.has(n) ||
      sourceLiterals.has(n) ||
      metricContract.includes(n) ||
      externalMetrics.includes(n);
    allowed = (n) =>
      known(n) || (/_(bucket|sum|count)$/.test(n) && known(n.replace(/_(bucket|sum|count)$/, '')));
  });

  it('the PromQL name extractor finds metrics and nothing else', () => {
    expect(
      promqlMetricNames(
        'histogram_quantile(0.99, sum by (le, operation) (rate(a_bucket{op!~"x|y", s="{5}"}[$__rate_interval]))) > 1e6 and on (instance) (time() - b_seconds offset 5m) > 0',
      ),
    ).toEqual(['a_bucket', 'b_seconds']);
    expect(promqlMetricNames('sum(rate(x_total[5m])) by (le) / ignoring(code) group_left y')).toEqual([
      'x_total',
      'y',
    ]);
    expect(variableQueryMetricNames('label_values(ostore_s3_requests_total{job="g"}, instance)')).toEqual([
      'ostore_s3_requests_total',
    ]);
    expect(variableQueryMetricNames('label_values(instance)')).toEqual([]);
  });

  it('a renamed metric would fail: names are checked against sources, prom-client defaults and the contract', () => {
    expect(allowed('ostore_s3_requests_total')).toBe(true);
    expect(allowed('ostore_s3_request_duration_seconds_bucket')).toBe(true);
    expect(allowed('process_cpu_seconds_total')).toBe(true);
    expect(allowed('ostore_lifecycle_overdue_versions')).toBe(true);
    expect(allowed('ostore_s3_request_total')).toBe(false);
    expect(allowed('ostore_blocks_reclaimed_total')).toBe(false);
  });

  it('the README metric contract lists the metrics of the features not written yet', () => {
    expect(metricContract.sort()).toEqual(
      [
        'ostore_lifecycle_actions_applied_total',
        'ostore_lifecycle_apply_failures_total',
        'ostore_lifecycle_overdue_versions',
        'ostore_queue_consumer_lag_messages',
        'ostore_scanner_candidates_published_total',
        'ostore_scanner_scan_duration_seconds',
        'ostore_scanner_versions_scanned_total',
      ].sort(),
    );
  });

  const alertFiles = [join(DEPLOY, 'prometheus/alerts.yaml'), join(k8sDir, 'monitoring/prometheusrule.yaml')];
  const ruleGroups = (file: string): any[] => {
    const doc = yamlDocs(file)[0];
    return doc.kind === 'PrometheusRule' ? doc.spec.groups : doc.groups;
  };
  const alertExprs = ruleGroups(alertFiles[0]).flatMap((g) =>
    g.rules.map((r: any) => ({ where: r.alert, expr: String(r.expr) })),
  );

  const dashboard = JSON.parse(read(join(DEPLOY, 'grafana/dashboards/ostore-overview.json')));
  const dashboardExprs = (dashboard.panels as any[]).flatMap((p) =>
    (p.targets ?? []).map((t: any) => ({ where: `${p.title} ${t.refId}`, expr: String(t.expr) })),
  );
  const variableQueries = (dashboard.templating.list as any[])
    .filter((v) => v.type === 'query')
    .map((v) => ({
      where: `variable ${v.name}`,
      query: typeof v.query === 'string' ? v.query : v.query.query,
    }));

  it('alert expressions use only known metric names', () => {
    expect(alertExprs.length).toBeGreaterThan(5);
    const bad = alertExprs.flatMap(({ where, expr }) =>
      promqlMetricNames(expr)
        .filter((n) => !allowed(n))
        .map((n) => `${where}: ${n}`),
    );
    expect(bad).toEqual([]);
  });

  it('dashboard queries and template variables use only known metric names', () => {
    const bad = [
      ...dashboardExprs.flatMap(({ where, expr }) =>
        promqlMetricNames(expr)
          .filter((n) => !allowed(n))
          .map((n) => `${where}: ${n}`),
      ),
      ...variableQueries.flatMap(({ where, query }) =>
        variableQueryMetricNames(query)
          .filter((n) => !allowed(n))
          .map((n) => `${where}: ${n}`),
      ),
    ];
    expect(bad).toEqual([]);
  });

  it('the dashboard covers S3, lifecycle, blocks, process and readiness metrics', () => {
    const used = new Set(dashboardExprs.flatMap(({ expr }) => promqlMetricNames(expr)));
    for (const n of [
      'ostore_s3_requests_total',
      'ostore_s3_request_duration_seconds_bucket',
      'ostore_s3_received_bytes_total',
      'ostore_s3_sent_bytes_total',
      'ostore_s3_inflight_requests',
      ...metricContract.map((m) => (m.endsWith('_seconds') ? `${m}_bucket` : m)),
      'ostore_block_gc_reclaimed_blocks_total',
      'ostore_block_gc_reclaimed_bytes_total',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'up',
    ]) {
      expect([n, used.has(n)]).toEqual([n, true]);
    }
  });

  it('the alerts cover availability, S3 errors and latency, lifecycle, lag, apply failures and block GC', () => {
    const used = new Set(alertExprs.flatMap(({ expr }) => promqlMetricNames(expr)));
    for (const n of [
      'up',
      'ostore_s3_requests_total',
      'ostore_s3_request_duration_seconds_bucket',
      'ostore_lifecycle_overdue_versions',
      'ostore_queue_consumer_lag_messages',
      'ostore_lifecycle_apply_failures_total',
      'ostore_block_gc_failures_total',
      'ostore_block_gc_reclaimed_bytes_total',
    ]) {
      expect([n, used.has(n)]).toEqual([n, true]);
    }
  });

  it('every rule is well-formed: unique alert names, severity, summary, durations', () => {
    const rules = ruleGroups(alertFiles[0]).flatMap((g) => g.rules);
    const names = rules.map((r: any) => r.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const r of rules) {
      expect(typeof r.alert).toBe('string');
      expect(['critical', 'warning', 'info']).toContain(r.labels.severity);
      expect(r.annotations.summary).toBeTruthy();
      if (r.for !== undefined) expect(r.for).toMatch(/^\d+[smhd]$/);
      // balanced parentheses and braces: the cheapest PromQL syntax check without promtool
      for (const [open, close] of [
        ['(', ')'],
        ['{', '}'],
        ['[', ']'],
      ]) {
        expect([r.alert, r.expr.split(open).length]).toEqual([r.alert, r.expr.split(close).length]);
      }
    }
  });

  it('the PrometheusRule carries exactly the groups of prometheus/alerts.yaml', () => {
    expect(ruleGroups(alertFiles[1])).toEqual(ruleGroups(alertFiles[0]));
  });
});

describe('prometheus/prometheus.yml', () => {
  const config = parseYaml(read(join(DEPLOY, 'prometheus/prometheus.yml')));

  it('scrapes the four apps on 127.0.0.1:9100-9103, one job per app, and loads the alert rules', () => {
    const jobs = Object.fromEntries(
      (config.scrape_configs as any[]).map((s) => [
        s.job_name,
        s.static_configs.flatMap((c: any) => c.targets),
      ]),
    );
    expect(jobs).toEqual(Object.fromEntries(APPS.map((a) => [a, [`127.0.0.1:${defaultManagementPort(a)}`]])));
    for (const f of config.rule_files) expect(existsSync(join(DEPLOY, 'prometheus', f))).toBe(true);
  });
});

describe('Grafana', () => {
  const dashboard = JSON.parse(read(join(DEPLOY, 'grafana/dashboards/ostore-overview.json')));
  const panels = dashboard.panels as any[];

  it('is a dashboard: schemaVersion >= 36, uid, title, time, templating, __inputs for DS_PROMETHEUS', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.uid).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
    expect(dashboard.title).toBeTruthy();
    expect(dashboard.time).toEqual({ from: expect.any(String), to: expect.any(String) });
    expect(dashboard.__inputs).toEqual([
      expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' }),
    ]);
    const ds = (dashboard.templating.list as any[]).find((v) => v.name === 'DS_PROMETHEUS');
    expect(ds).toEqual(expect.objectContaining({ type: 'datasource', query: 'prometheus' }));
  });

  it('has the rows S3 traffic, Lifecycle, Usage, Blocks, Process, Readiness, Empty-directory cleanup', () => {
    expect(panels.filter((p) => p.type === 'row').map((p) => p.title)).toEqual([
      'S3 traffic',
      'Lifecycle',
      'Usage',
      'Blocks',
      'Process',
      'Readiness',
      'Empty-directory cleanup',
    ]);
  });

  it('panels: unique ids, Prometheus queries through ${DS_PROMETHEUS}, inside the 24-column grid, no overlaps', () => {
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of panels) {
      const g = p.gridPos;
      expect(g.x).toBeGreaterThanOrEqual(0);
      expect(g.x + g.w).toBeLessThanOrEqual(24);
      expect(g.h).toBeGreaterThan(0);
      if (p.type === 'row') continue;
      expect(['timeseries', 'stat', 'gauge', 'table', 'bargauge', 'state-timeline', 'text']).toContain(
        p.type,
      );
      expect(p.datasource).toEqual({ type: 'prometheus', uid: '${DS_PROMETHEUS}' });
      expect(p.targets.length).toBeGreaterThan(0);
      const refIds = p.targets.map((t: any) => t.refId);
      expect(new Set(refIds).size).toBe(refIds.length);
      for (const t of p.targets) {
        expect(t.datasource).toEqual({ type: 'prometheus', uid: '${DS_PROMETHEUS}' });
        expect(t.expr).toBeTruthy();
      }
    }
    for (let i = 0; i < panels.length; i++) {
      for (let j = i + 1; j < panels.length; j++) {
        const a = panels[i].gridPos;
        const b = panels[j].gridPos;
        const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
        expect([panels[i].title, panels[j].title, overlap]).toEqual([
          panels[i].title,
          panels[j].title,
          false,
        ]);
      }
    }
  });

  it('template variables refer to the datasource variable and are used', () => {
    const json = JSON.stringify(panels);
    for (const v of dashboard.templating.list as any[]) {
      if (v.type === 'datasource') continue;
      expect(v.datasource).toEqual({ type: 'prometheus', uid: '${DS_PROMETHEUS}' });
      expect(json).toContain(`$${v.name}`);
    }
  });

  it('provisioning: a Prometheus datasource and a file provider', () => {
    const ds = parseYaml(read(join(DEPLOY, 'grafana/provisioning/datasources/ostore-prometheus.yaml')));
    expect(ds.apiVersion).toBe(1);
    expect(ds.datasources).toEqual([
      expect.objectContaining({ type: 'prometheus', isDefault: true, url: expect.any(String) }),
    ]);
    const prov = parseYaml(read(join(DEPLOY, 'grafana/provisioning/dashboards/ostore.yaml')));
    expect(prov.apiVersion).toBe(1);
    expect(prov.providers).toEqual([
      expect.objectContaining({
        type: 'file',
        options: expect.objectContaining({ path: expect.any(String) }),
      }),
    ]);
  });
});
