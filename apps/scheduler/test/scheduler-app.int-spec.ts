import { VersionCandidate } from '@ostore/queue/contracts';
import { CassandraQueueProducer, CassandraQueueRepository, KafkaClient, KafkaQueueProducer, QueueProducer } from '@ostore/queue/data-access';
import { appEnv, AppProcess, freshCluster, metricSum, stackEnv, waitFor } from '@ostore/testing';
import { bucketWith, expireDays, history, put, stack, Stack } from './support';

let nextPort = 23000 + Math.floor(Math.random() * 1000) * 2;
const PARTITIONS = 3;
const OBJECTS = 150;

/**
 * The scheduler app as deployed (its main.ts, config, modules), once per QUEUE_BACKEND: it
 * applies candidates published by a "scanner", is killed with SIGKILL in the middle (no drain, no
 * final commit), and a new process resumes: in the end every object is expired exactly once.
 */
describe.each(['kafka', 'cassandra'] as const)('the scheduler app with QUEUE_BACKEND=%s', (backend) => {
  let s: Stack;
  let producer: QueueProducer;
  let kafka: KafkaClient | undefined;
  const processes: AppProcess[] = [];
  const cluster = freshCluster(`app${backend}`);
  const port = nextPort++;

  beforeAll(async () => {
    s = await stack(`schedapp${backend}`);
    if (backend === 'kafka') {
      kafka = new KafkaClient({ brokers: stackEnv().kafkaBrokers, clientId: 'scanner-spec', cluster, partitions: PARTITIONS, replicationFactor: 1 });
      producer = new KafkaQueueProducer(kafka);
    } else {
      producer = new CassandraQueueProducer(new CassandraQueueRepository(s.client), { cluster, partitions: PARTITIONS });
    }
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await producer?.close();
    await kafka?.close();
    await s?.close();
  });

  const start = () => {
    const p = new AppProcess('scheduler', {
      ...appEnv(s.keyspace, cluster),
      MANAGEMENT_PORT: String(port),
      MANAGEMENT_HOST: '127.0.0.1',
      QUEUE_BACKEND: backend,
      KAFKA_TOPIC_PARTITIONS: String(PARTITIONS),
      QUEUE_SESSION_TIMEOUT_MS: '6000',
      BLOCK_STORE: 'cassandra',
      LIFECYCLE_DEBUG_DAY_SECONDS: '1',
      // slow enough to be killed halfway: 3 partitions x 15/s
      SCHEDULER_RATE_PER_PARTITION: '15',
      SHUTDOWN_TIMEOUT_MS: '10000',
      // the claims the killed process held last this long: the new one waits them out
      SCHEDULER_CLAIM_TTL_SECONDS: '5',
    }).start();
    processes.push(p);
    return p;
  };
  const metric = (name: string) => metricSum(`http://127.0.0.1:${port}`, name);

  it('applies candidates, survives SIGKILL mid-batch, and a new process finishes the work exactly once', async () => {
    const b = await bucketWith(s.core, `app-${backend}`, 'Enabled', expireDays(1));
    const keys = Array.from({ length: OBJECTS }, (_, i) => `logs/${String(i).padStart(4, '0')}.log`);
    const versionIds: string[] = [];
    for (let i = 0; i < keys.length; i += 25)
      versionIds.push(...(await Promise.all(keys.slice(i, i + 25).map((k) => put(s.core, b.name, k, k)))).map((r) => r.versionId));
    const messages = keys.map((key, i) =>
      VersionCandidate.toMessage({
        bucketId: b.bucketId,
        bucket: b.name,
        key,
        parent: 'logs/',
        name: key.slice(5),
        versions: [{ versionId: versionIds[i], rules: [{ ruleId: 'expire', action: 'Expiration' }] }],
        scannedAt: new Date(),
        sourceHost: `cass-${i % PARTITIONS}`,
      }),
    );
    for (let p = 0; p < PARTITIONS; p++) await producer.publish('versions', p, messages.filter((_, i) => i % PARTITIONS === p));
    await new Promise((r) => setTimeout(r, 1100)); // one debug day: every object is due
    const remaining = async () => (await s.core.objects.list({ bucket: b.name, prefix: 'logs/', maxKeys: 1000 })).contents.length;

    const first = start();
    const progress = (p: AppProcess, below: number) => async () => {
      if (p.exitCode !== undefined) throw new Error(`scheduler exited (${p.exitCode}):\n${p.output.join('')}`);
      return (await remaining()) <= below ? true : undefined;
    };
    /** The process's log without its per-action lines. */
    const logOf = (p: AppProcess) =>
      p.output
        .join('')
        .split('\n')
        .filter((l) => !l.includes('"lifecycle action '))
        .join('\n')
        .slice(-8000);
    await waitFor('a part of the candidates applied', progress(first, OBJECTS - 30), 120_000, 100).catch((e) => {
      throw new Error(`${(e as Error).message}\n${logOf(first)}`);
    });
    first.signal('SIGKILL');
    await first.waitForExit(10_000);
    const left = await remaining();
    expect(left).toBeGreaterThan(0);

    const secondStartedAt = Date.now();
    const second = start();
    await waitFor('every object expired', progress(second, 0), 120_000, 250).catch(async (e) => {
      throw new Error(`${(e as Error).message} (${await remaining()} left)\n${logOf(second)}`);
    });
    for (const k of keys) expect((await history(s.core, b.name, k)).map((h) => h.kind)).toEqual(['M', 'STANDARD']);
    // The second applied what was left (the first's uncommitted, already applied ones are skipped).
    // An expiration the killed process had already sent can still land after `left` was counted:
    // the markers the second process wrote are those stamped after it started (one clock).
    const markers = (await s.core.objects.listVersions({ bucket: b.name, prefix: 'logs/', maxKeys: 1000 })).versions.filter((v) => v.isDeleteMarker);
    expect(markers).toHaveLength(OBJECTS);
    const bySecond = markers.filter((m) => m.lastModified.getTime() >= secondStartedAt).length;
    expect(bySecond).toBeGreaterThan(0);
    expect(bySecond).toBeLessThanOrEqual(left);
    expect(await metric('ostore_lifecycle_actions_applied_total{')).toBe(bySecond);
    expect(await metric('ostore_lifecycle_apply_failures_total{')).toBe(0);
    // the lag gauge is refreshed by the consumer's next fetch or poll
    await waitFor('no consumer lag', async () => ((await metric('ostore_queue_consumer_lag_messages{')) === 0 ? true : undefined), 20_000);

    second.signal('SIGTERM');
    expect((await second.waitForExit(20_000)).code).toBe(0);
  }, 400_000);
});
