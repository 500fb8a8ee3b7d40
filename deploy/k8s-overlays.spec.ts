/**
 * The kustomize overlays as an operator applies them: each one builds (`kubectl kustomize`),
 * every rendered object validates against the Kubernetes API schemas (and the Prometheus
 * Operator CRDs) with kubeconform in strict mode, and the rendered objects keep the
 * deployment's rules: credentials by Secret reference only, the HPA owning the gateway's
 * replicas, a scanner that cannot make its Cassandra pod unready, stats with a volume, consumer
 * replicas within the Kafka partitions, pinned images, and NetworkPolicies that let only what
 * must talk talk. Validators: tools/setup.sh (deploy/tools/install-validators.sh).
 */
import { execFileSync, spawnSync } from 'child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { homedir, tmpdir } from 'os';
import { join } from 'path';
import { parseAllDocuments, stringify } from 'yaml';
import { loadGatewayConfig } from '../apps/gateway/src/config/gateway.config';
import { loadScannerConfig } from '../apps/scanner/src/config/scanner.config';
import { loadSchedulerConfig } from '../apps/scheduler/src/config/scheduler.config';
import { loadStatsConfig } from '../apps/stats/src/config/stats.config';

const VALIDATORS = process.env.OSTORE_VALIDATORS ?? join(homedir(), '.cache/ostore/validators');
const K8S_VERSION = '1.32.0';
const OVERLAYS = ['dev', 'prod'] as const;
const loaders: Record<string, (env: Record<string, string>) => unknown> = {
  gateway: loadGatewayConfig,
  scanner: loadScannerConfig,
  scheduler: loadSchedulerConfig,
  stats: loadStatsConfig,
};

/** Renders an overlay from a copy of deploy/k8s (the dev overlay's generated secrets made there). */
function render(overlay: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ostore-k8s-${overlay}-`));
  try {
    cpSync(join(__dirname, 'k8s'), dir, {
      recursive: true,
      filter: (src) => !src.includes(`${join('overlays', 'dev', 'secrets')}`),
    });
    const maker = join(dir, 'overlays', overlay, 'make-secrets.sh');
    if (existsSync(maker)) execFileSync('bash', [maker], { stdio: 'pipe' });
    return execFileSync('kubectl', ['kustomize', join(dir, 'overlays', overlay)], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rendered = Object.fromEntries(OVERLAYS.map((o) => [o, render(o)])) as Record<string, string>;
const objectsOf = (o: string): any[] =>
  parseAllDocuments(rendered[o])
    .map((d) => d.toJS())
    .filter(Boolean);

const find = (objs: any[], kind: string, name: string) => {
  const found = objs.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name}`);
  return found;
};
const podSpecs = (objs: any[]) =>
  objs.filter((o) => o.spec?.template?.spec).map((o) => ({ workload: o, pod: o.spec.template }));
const containersOf = (objs: any[]) =>
  podSpecs(objs).flatMap(({ workload, pod }) =>
    [...(pod.spec.initContainers ?? []), ...pod.spec.containers].map((c: any) => ({ workload, pod, c })),
  );

interface Result {
  filename: string;
  kind: string;
  name: string;
  status: string;
  msg: string;
}
let results: Result[] | undefined;
/**
 * One kubeconform run (strict: unknown fields are errors) over every overlay and a deliberately
 * broken object, so that a validator that accepts anything fails the spec.
 */
function validation(): Result[] {
  if (results) return results;
  const bin = join(VALIDATORS, 'bin/kubeconform');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run tools/setup.sh`);
  const dir = mkdtempSync(join(tmpdir(), 'ostore-kubeconform-'));
  try {
    for (const o of OVERLAYS) writeFileSync(join(dir, `${o}.yaml`), rendered[o]);
    const broken = objectsOf('dev').find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'cassandra');
    broken.spec.template.spec.containers[0].ports[0] = { containerPorts: 9042 };
    writeFileSync(join(dir, 'broken.yaml'), stringify(broken));
    const out = spawnSync(
      bin,
      [
        '-strict',
        '-verbose',
        '-output',
        'json',
        '-kubernetes-version',
        K8S_VERSION,
        '-schema-location',
        `${VALIDATORS}/k8s/{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json`,
        '-schema-location',
        `${VALIDATORS}/crds/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json`,
        dir,
      ],
      { encoding: 'utf8' },
    );
    results = JSON.parse(out.stdout).resources as Result[];
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

it('the validator rejects an object the API server would reject (unknown field, missing containerPort)', () => {
  const broken = validation().filter((r) => r.filename.endsWith('broken.yaml'));
  expect(broken).toHaveLength(1);
  expect(broken[0].status).toBe('statusInvalid');
  expect(broken[0].msg).toMatch(/containerPort/);
});

describe.each(OVERLAYS.map((o) => [o]))('overlay %s', (overlay) => {
  const objs = objectsOf(overlay);
  const env = find(objs, 'ConfigMap', 'ostore-env').data as Record<string, string>;
  const partitions = Number(env.KAFKA_TOPIC_PARTITIONS);

  it('builds, and every object is valid against the Kubernetes API (and CRD) schemas', () => {
    const results = validation().filter((r) => r.filename.endsWith(`${overlay}.yaml`));
    expect(results.filter((r) => r.status !== 'statusValid')).toEqual([]);
    expect(results).toHaveLength(objs.length);
  });

  it('credentials only by Secret reference: no Secret but generated ones, no literal credential', () => {
    const secrets = objs.filter((o) => o.kind === 'Secret');
    if (overlay === 'prod') expect(secrets).toEqual([]);
    for (const s of secrets) {
      // generated by kustomize (content-hash suffix) from a file make-secrets.sh wrote
      expect(s.metadata.name).toMatch(/^ostore-admin-[a-z0-9]{10}$/);
      expect(Buffer.from(s.data.ADMIN_TOKEN, 'base64').toString()).toMatch(/^[0-9a-f]{64}$/);
    }
    for (const { c } of containersOf(objs)) {
      for (const e of c.env ?? []) {
        if (/PASSWORD|TOKEN|SECRET|USERNAME/.test(e.name) && e.name !== 'KAFKA_SASL_MECHANISM') {
          expect([c.name, e.name, e.value]).toEqual([c.name, e.name, undefined]);
          expect(e.valueFrom.secretKeyRef).toBeDefined();
        }
      }
    }
    expect(JSON.stringify(env)).not.toMatch(/PASSWORD|TOKEN|USERNAME/);
  });

  it('every OStore container passes its app config loader with the rendered environment', () => {
    const secretValues = new Map<string, Record<string, string>>(
      objs
        .filter((o) => o.kind === 'Secret')
        .map((s) => [
          s.metadata.name,
          Object.fromEntries(
            Object.entries(s.data).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString()]),
          ),
        ]),
    );
    const ostore = containersOf(objs).filter((x) => x.c.name in loaders);
    expect(ostore.map((x) => x.c.name).sort()).toEqual(Object.keys(loaders).sort());
    for (const { c } of ostore) {
      const vars: Record<string, string> = {};
      for (const from of c.envFrom ?? [])
        Object.assign(vars, find(objs, 'ConfigMap', from.configMapRef.name).data);
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (e.value !== undefined) vars[e.name] = String(e.value);
        else if (ref) {
          const value = secretValues.get(ref.name)?.[ref.key];
          // an external Secret (prod): the operator's value, stood in for here
          if (value !== undefined) vars[e.name] = value;
          else if (ref.optional === false) vars[e.name] = `external-${ref.name}-${ref.key}`;
        } else if (e.valueFrom?.fieldRef) vars[e.name] = '0';
      }
      expect(() => loaders[c.name](vars)).not.toThrow();
    }
  });

  it('the HPA alone owns the gateway replicas', () => {
    const gateway = find(objs, 'Deployment', 'gateway');
    expect(gateway.spec.replicas).toBeUndefined();
    const hpa = find(objs, 'HorizontalPodAutoscaler', 'gateway');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'gateway' });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(1);
  });

  it('the scanner sidecar cannot make its Cassandra pod unready: no readiness or startup probe', () => {
    const sts = find(objs, 'StatefulSet', 'cassandra');
    const scanner = sts.spec.template.spec.containers.find((c: any) => c.name === 'scanner');
    expect(scanner.readinessProbe).toBeUndefined();
    expect(scanner.startupProbe).toBeUndefined();
    expect(scanner.livenessProbe.httpGet.path).toBe('/health/live');
    const cassandra = sts.spec.template.spec.containers.find((c: any) => c.name === 'cassandra');
    expect(cassandra.readinessProbe.tcpSocket.port).toBe(9042);
  });

  it('stats is a StatefulSet with its own volume', () => {
    const stats = find(objs, 'StatefulSet', 'stats');
    const claim = stats.spec.volumeClaimTemplates[0].metadata.name;
    const c = stats.spec.template.spec.containers[0];
    const mount = c.volumeMounts.find((m: any) => m.name === claim);
    expect(mount.mountPath).toBe(c.env.find((e: any) => e.name === 'STATS_DATA_DIR').value);
    expect(objs.find((o) => o.kind === 'Deployment' && o.metadata.name === 'stats')).toBeUndefined();
  });

  it('Kafka consumers within the partitions; one partition per Cassandra node (scanner host index)', () => {
    expect(find(objs, 'Deployment', 'scheduler').spec.replicas).toBeLessThanOrEqual(partitions);
    expect(find(objs, 'StatefulSet', 'stats').spec.replicas).toBeLessThanOrEqual(partitions);
    expect(find(objs, 'StatefulSet', 'cassandra').spec.replicas).toBe(partitions);
  });

  it('every image is pinned to an exact tag; Cassandra to an exact release', () => {
    for (const { c } of containersOf(objs)) {
      expect([c.name, c.image]).toEqual([c.name, expect.stringMatching(/^[^:@]+(:[0-9][\w.-]*)$/)]);
      if (c.name === 'cassandra') expect(c.image).toMatch(/^cassandra:\d+\.\d+\.\d+$/);
    }
  });

  describe('NetworkPolicies', () => {
    const policies = objs.filter((o) => o.kind === 'NetworkPolicy');
    const ns = 'ostore';
    const labelsOf = (name: string) => {
      const w = podSpecs(objs).find(({ workload }) => workload.metadata.name === name);
      if (!w) throw new Error(`no workload ${name}`);
      return w.pod.metadata.labels as Record<string, string>;
    };
    const selects = (sel: any, labels: Record<string, string>) =>
      Object.entries(sel?.matchLabels ?? {}).every(([k, v]) => labels[k] === v) &&
      (sel?.matchExpressions ?? []).every((e: any) =>
        e.operator === 'In'
          ? e.values.includes(labels[e.key])
          : e.operator === 'Exists'
            ? e.key in labels
            : false,
      );
    interface Peer {
      namespace: string;
      labels: Record<string, string>;
    }
    /** Whether `from` may open a TCP connection to `port` of the pods of workload `to`. */
    function allowed(from: Peer, to: string, port: number): boolean {
      const target = labelsOf(to);
      const applying = policies.filter(
        (p) => selects(p.spec.podSelector, target) && p.spec.policyTypes.includes('Ingress'),
      );
      if (applying.length === 0) return true;
      return applying.some((p) =>
        (p.spec.ingress ?? []).some(
          (rule: any) =>
            (!rule.ports || rule.ports.some((pp: any) => pp.port === port)) &&
            (!rule.from ||
              rule.from.some((peer: any) => {
                const nsOk = peer.namespaceSelector
                  ? selects(peer.namespaceSelector, { 'kubernetes.io/metadata.name': from.namespace })
                  : from.namespace === ns;
                const podOk = peer.podSelector ? selects(peer.podSelector, from.labels) : true;
                return nsOk && podOk;
              })),
        ),
      );
    }
    const client: Peer = { namespace: 'ingress', labels: { app: 'ingress-nginx' } };
    const neighbour: Peer = { namespace: ns, labels: { 'app.kubernetes.io/name': 'debug-shell' } };
    const prometheus: Peer = { namespace: 'monitoring', labels: { 'app.kubernetes.io/name': 'prometheus' } };
    const app = (name: string): Peer => ({ namespace: ns, labels: labelsOf(name) });

    it('a default deny covers every pod of the namespace', () => {
      const deny = policies.find((p) => Object.keys(p.spec.podSelector).length === 0 && !p.spec.ingress);
      expect(deny).toBeDefined();
    });

    it('clients reach the gateway S3 port, and nothing else', () => {
      expect(allowed(client, 'gateway', 9000)).toBe(true);
      expect(allowed(client, 'gateway', 9100)).toBe(false); // management + admin API
      expect(allowed(neighbour, 'gateway', 9100)).toBe(false);
      expect(allowed(client, 'cassandra', 9042)).toBe(false);
      expect(allowed(neighbour, 'cassandra', 9042)).toBe(false);
      for (const a of ['scheduler', 'stats']) expect(allowed(client, a, 9102)).toBe(false);
    });

    it('the apps reach Cassandra; the nodes reach each other', () => {
      for (const a of ['gateway', 'scheduler', 'stats'])
        expect([a, allowed(app(a), 'cassandra', 9042)]).toEqual([a, true]);
      expect(allowed(app('cassandra'), 'cassandra', 7000)).toBe(true);
      expect(allowed(app('gateway'), 'cassandra', 7000)).toBe(false);
      expect(allowed(app('gateway'), 'cassandra', 7199)).toBe(false);
    });

    it('Prometheus reaches every management port and nothing else', () => {
      for (const [a, port] of [
        ['gateway', 9100],
        ['cassandra', 9101],
        ['scheduler', 9102],
        ['stats', 9103],
      ] as const)
        expect([a, allowed(prometheus, a, port)]).toEqual([a, true]);
      expect(allowed(prometheus, 'cassandra', 9042)).toBe(false);
      expect(allowed({ namespace: 'default', labels: prometheus.labels }, 'gateway', 9100)).toBe(false);
    });

    if (overlay === 'dev') {
      it('the in-cluster Kafka is reached by the apps only', () => {
        for (const a of ['gateway', 'cassandra', 'scheduler', 'stats'])
          expect([a, allowed(app(a), 'kafka', 9092)]).toEqual([a, true]);
        expect(allowed(neighbour, 'kafka', 9092)).toBe(false);
        expect(allowed(client, 'kafka', 9092)).toBe(false);
      });
    }
  });
});

describe('the overlays differ where they must', () => {
  it('prod: three Cassandra nodes with PasswordAuthenticator, Kafka over SASL_SSL with required secrets', () => {
    const objs = objectsOf('prod');
    const sts = find(objs, 'StatefulSet', 'cassandra');
    expect(sts.spec.replicas).toBe(3);
    const cassandra = sts.spec.template.spec.containers.find((c: any) => c.name === 'cassandra');
    expect(cassandra.args.join(' ')).toContain('PasswordAuthenticator');
    expect(cassandra.args.join(' ')).toMatch(/exec docker-entrypoint\.sh cassandra -f$/);
    const env = find(objs, 'ConfigMap', 'ostore-env').data;
    expect(env.KAFKA_SASL_MECHANISM).toBe('scram-sha-512');
    expect(env.KAFKA_TLS).toBe('true');
    const required = containersOf(objs)
      .filter((x) => x.c.name in loaders)
      .flatMap((x) =>
        (x.c.env as any[])
          .filter((e) => e.valueFrom?.secretKeyRef?.optional === false)
          .map((e) => `${x.c.name}:${e.name}`),
      );
    expect(required).toHaveLength(16);
    expect(objs.map((o) => o.kind)).toEqual(expect.arrayContaining(['ServiceMonitor', 'PrometheusRule']));
  });

  it('dev: one of everything and a generated admin token, never committed', () => {
    const objs = objectsOf('dev');
    expect(find(objs, 'StatefulSet', 'cassandra').spec.replicas).toBe(1);
    expect(find(objs, 'StatefulSet', 'kafka').spec.template.spec.containers[0].image).toMatch(
      /^apache\/kafka:\d+\.\d+\.\d+$/,
    );
    const ignore = readFileSync(join(__dirname, 'k8s/overlays/dev/.gitignore'), 'utf8');
    expect(ignore.split('\n')).toContain('secrets/');
  });
});
