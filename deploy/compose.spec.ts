/**
 * compose.yaml (cannot be run here: no Docker engine) against the apps' configuration: every
 * variable an app service gets is one its config schema knows (or deploy/README.md's environment
 * contract), the environment passes the app's real config loader, the published ports and the
 * health checks are the ports the app listens on, the images are the exact versions of the test
 * stack and of deploy/k8s, and the apps wait for healthy dependencies.
 */
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { parse } from 'yaml';
import { baseEnvSchema } from '@ostore/shared/runtime';
import { loadGatewayConfig } from '../apps/gateway/src/config/gateway.config';
import { loadScannerConfig } from '../apps/scanner/src/config/scanner.config';
import { loadSchedulerConfig } from '../apps/scheduler/src/config/scheduler.config';
import { loadStatsConfig } from '../apps/stats/src/config/stats.config';

const ROOT = join(__dirname, '..');
const compose = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'), { merge: true });
const services: Record<string, any> = compose.services;
const loaders: Record<string, (env: Record<string, string>) => { management: { port: number } }> = {
  gateway: loadGatewayConfig,
  scanner: loadScannerConfig,
  scheduler: loadSchedulerConfig,
  stats: loadStatsConfig,
};
const APPS = Object.keys(loaders);

/** Variable names an app's own schema declares (apps/<app>/src/config/*.config.ts), the base ones, the contract. */
function known(app: string): Set<string> {
  const dir = join(ROOT, 'apps', app, 'src/config');
  const own = readdirSync(dir)
    .filter((f) => f.endsWith('.config.ts'))
    .flatMap((f) =>
      [...readFileSync(join(dir, f), 'utf8').matchAll(/^\s+([A-Z][A-Z0-9_]+):\s*(?:z\.|envVar\.)/gm)].map(
        (m) => m[1],
      ),
    );
  const readme = readFileSync(join(__dirname, 'README.md'), 'utf8');
  const contract = readme.slice(readme.indexOf('## Environment contract'));
  const rows = [...contract.matchAll(/^\| `([A-Z_]+)` \| ([^|]+) \|/gm)]
    .filter(
      (m) =>
        m[2].trim() === 'all' ||
        m[2]
          .split(',')
          .map((a) => a.trim())
          .includes(app),
    )
    .map((m) => m[1]);
  return new Set([...Object.keys(baseEnvSchema.shape), ...own, ...rows]);
}

const env = (name: string): Record<string, string> =>
  Object.fromEntries(Object.entries(services[name].environment ?? {}).map(([k, v]) => [k, String(v)]));
const published = (name: string) =>
  (services[name].ports ?? []).map((p: string) => {
    const [host, hostPort, containerPort] = p.split(':');
    return { host, hostPort: Number(hostPort), containerPort: Number(containerPort) };
  });

describe('compose.yaml', () => {
  it('runs Cassandra, Kafka and the four apps', () => {
    expect(Object.keys(services)).toEqual(expect.arrayContaining(['cassandra', 'kafka', ...APPS]));
  });

  describe.each(APPS.map((a) => [a]))('%s', (app) => {
    const e = env(app);

    it('runs its own app from the one image', () => {
      expect(e.APP).toBe(app);
      expect(services[app].image).toBe(services.gateway.image);
      expect(services[app].build.dockerfile).toBe('deploy/docker/Dockerfile');
    });

    it("gets only variables its config schema knows, and passes the app's config loader", () => {
      const k = known(app);
      expect(Object.keys(e).filter((n) => !k.has(n))).toEqual([]);
      expect(() => loaders[app](e)).not.toThrow();
    });

    it('publishes its management port (on loopback) and checks health on it', () => {
      const port = loaders[app](e).management.port;
      expect(published(app)).toContainEqual({ host: '127.0.0.1', hostPort: port, containerPort: port });
      expect(services[app].healthcheck.test.join(' ')).toContain(`http://127.0.0.1:${port}/health/ready`);
    });

    it('waits for healthy Cassandra and Kafka', () => {
      expect(services[app].depends_on.cassandra.condition).toBe('service_healthy');
      expect(services[app].depends_on.kafka.condition).toBe('service_healthy');
    });

    it('reaches Cassandra and Kafka by their service names, in the datacenter Cassandra runs', () => {
      expect(e.CASSANDRA_CONTACT_POINTS).toBe('cassandra');
      expect(e.CASSANDRA_LOCAL_DC).toBe(env('cassandra').CASSANDRA_DC);
      expect(e.KAFKA_BROKERS).toBe(env('kafka').KAFKA_ADVERTISED_LISTENERS.replace(/^PLAINTEXT:\/\//, ''));
    });
  });

  it('the gateway publishes the S3 port it listens on', () => {
    const s3Port = (loadGatewayConfig(env('gateway')) as any).s3.port;
    expect(published('gateway')).toContainEqual({
      host: '127.0.0.1',
      hostPort: s3Port,
      containerPort: s3Port,
    });
  });

  it('one Kafka partition per Cassandra node: the scanner publishes to its host index', () => {
    expect(env('scanner').SCANNER_HOST_INDEX).toBe('0');
    expect(env('gateway').KAFKA_TOPIC_PARTITIONS).toBe('1');
  });

  it('images are the exact versions of the test stack and of deploy/k8s', () => {
    const pom = (p: string, prop: string) =>
      new RegExp(`<${prop}>([^<]+)</${prop}>`).exec(readFileSync(join(ROOT, p), 'utf8'))![1];
    expect(services.cassandra.image).toBe(
      `cassandra:${pom('tools/stack/maven/cassandra/pom.xml', 'cassandra.version')}`,
    );
    expect(services.kafka.image).toBe(
      `apache/kafka:${pom('tools/stack/maven/kafka/pom.xml', 'kafka.version')}`,
    );
    expect(readFileSync(join(__dirname, 'k8s/base/cassandra.yaml'), 'utf8')).toContain(
      `image: ${services.cassandra.image}`,
    );
    expect(readFileSync(join(__dirname, 'k8s/overlays/dev/kafka.yaml'), 'utf8')).toContain(
      `image: ${services.kafka.image}`,
    );
  });

  it('the apps write only to their volumes and /tmp', () => {
    for (const app of APPS) {
      expect(services[app].read_only).toBe(true);
      expect(services[app].tmpfs).toContain('/tmp');
    }
    const mounts = (s: string) => (services[s].volumes ?? []).map((v: string) => v.split(':')[1]);
    expect(env('gateway').BLOCK_STORE_DIR.startsWith(`${mounts('gateway')[0]}/`)).toBe(true);
    expect(mounts('stats')).toContain(env('stats').STATS_DATA_DIR);
    expect(services.volumes.entrypoint).toEqual(
      expect.arrayContaining([...mounts('gateway'), ...mounts('stats')]),
    );
  });
});
