import { AppName, AppProcess, APPS, appEnv, freshCluster, freshKeyspace, stackCommand, waitFor } from '@ostore/testing';

const basePort = 19100 + Math.floor(Math.random() * 500) * 4;
const ports: Record<AppName, number> = {
  gateway: basePort,
  scanner: basePort + 1,
  scheduler: basePort + 2,
  stats: basePort + 3,
};

async function readyStatus(app: AppName): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${ports[app]}/health/ready`);
  await res.text();
  return res.status;
}

describe('the four apps against the real stack', () => {
  const keyspace = freshKeyspace('apps');
  const cluster = freshCluster('apps');
  const processes = APPS.map(
    (app) =>
      new AppProcess(app, {
        ...appEnv(keyspace, cluster),
        MANAGEMENT_PORT: String(ports[app]),
        MANAGEMENT_HOST: '127.0.0.1',
        S3_PORT: String(basePort + 4000),
        S3_HOST: '127.0.0.1',
      }),
  );

  beforeAll(async () => {
    processes.forEach((p) => p.start());
    await Promise.all(
      APPS.map((app) =>
        waitFor(`${app} ready`, async () => ((await readyStatus(app)) === 200 ? true : undefined), 90000),
      ),
    );
  }, 120000);

  // the apps stop even when Cassandra cannot be started again (stackCommand acts on this run's own stack only)
  afterAll(async () => {
    try {
      await stackCommand('start-cassandra');
    } finally {
      await Promise.all(processes.map((p) => p.stop()));
    }
  }, 120000);

  it.each(APPS)('%s answers /health/live, /health/ready and /metrics in Prometheus text', async (app) => {
    expect((await fetch(`http://127.0.0.1:${ports[app]}/health/live`)).status).toBe(200);
    const ready = await fetch(`http://127.0.0.1:${ports[app]}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      ready: true,
      checks: { cassandra: { ok: true }, kafka: { ok: true } },
    });

    const metrics = await fetch(`http://127.0.0.1:${ports[app]}/metrics`);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    const text = await metrics.text();
    expect(text).toContain('# TYPE process_cpu_seconds_total counter');
    expect(text).toMatch(new RegExp(`ostore_app_info\\{.*app="${app}".*\\} 1`));
  });

  it('every app turns unready when Cassandra stops and ready again when it is back', async () => {
    await stackCommand('stop-cassandra');
    await Promise.all(
      APPS.map((app) =>
        waitFor(`${app} unready`, async () => ((await readyStatus(app)) === 503 ? true : undefined), 60000),
      ),
    );
    const report = (await (await fetch(`http://127.0.0.1:${ports.scanner}/health/ready`)).json()) as { checks: Record<string, { ok: boolean }> };
    expect(report.checks.cassandra.ok).toBe(false);
    expect(report.checks.kafka.ok).toBe(true);

    await stackCommand('start-cassandra');
    await Promise.all(
      APPS.map((app) =>
        waitFor(
          `${app} ready again`,
          async () => ((await readyStatus(app)) === 200 ? true : undefined),
          120000,
        ),
      ),
    );
  }, 300000);

  it('the gateway stops on SIGTERM: exits 0 and its ports close', async () => {
    const gateway = processes[0];
    gateway.signal('SIGTERM');
    const status = await gateway.waitForExit(30000);
    expect(status.code).toBe(0);
    expect(gateway.output.join('')).toContain('"msg":"stopped"');
    await expect(fetch(`http://127.0.0.1:${ports.gateway}/health/live`)).rejects.toThrow();
  });
});
