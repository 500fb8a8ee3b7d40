import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GatewayUnderTest, waitFor } from '@ostore/testing';
import { admin, heldBytes, MiB, mixedLoad, mostWithin, outcome, setQuota, startThreeGateways, usageOf, UsageAnswer } from './quota-helpers';

const intervalMs = 250; // QUOTA_LEDGER_INTERVAL_MS's default, which these gateways run with
const KiB = 1024;
const sizes = [64 * KiB, 128 * KiB, 256 * KiB];
const largest = Math.max(...sizes);
const now = () => performance.now();

/**
 * The cheap quota path's documented bounds (README, "Bucket quotas") across three real gateway
 * processes on one keyspace, with the default interval and headroom percentage (10 %) and no
 * byte/object floor, so a 10 MiB quota is cheap up to 9 MiB and exact in its last 1 MiB:
 * - N gateways: a gateway is blind to the others' commits for at most two intervals, so the bucket
 *   passes the limit only by what the others commit beyond the headroom in that window plus their
 *   requests in flight;
 * - SIGKILL: the ledger undercounts by at most the killed gateway's last interval of commits (plus
 *   what it committed without answering), until `bucket quota recount` restores it exactly;
 * - deletes through one gateway make room for another within two intervals.
 * Windows are measured by answer time in the test, widened by one interval for late timers on a
 * loaded machine; nothing here asserts a duration.
 */
describe('bucket quotas on the cheap path (three gateways)', () => {
  const gateways: GatewayUnderTest[] = [];
  let clients: S3Client[];

  beforeAll(async () => {
    await startThreeGateways('qcheap', { QUOTA_EXACT_HEADROOM_BYTES: '0', QUOTA_EXACT_HEADROOM_OBJECTS: '0' }, gateways);
    clients = gateways.map((g) => g.client(gateways[0].credentials));
  }, 400_000);
  afterAll(() => Promise.all(gateways.map((g) => g.stop())));

  /** Sends every gateway's summed changes (an admin read flushes its own), then reads the ledger. */
  async function ledgerAfterFlush(bucket: string, live: GatewayUnderTest[]): Promise<UsageAnswer> {
    for (const gw of live) await usageOf(gw, bucket);
    return usageOf(live[0], bucket);
  }

  const Bucket = 'cheap-three';
  const quota = 10 * MiB;
  let full: { accepted: { key: string; size: number }[]; held: number };

  it('32 mixed uploaders over three gateways pass a 10 MiB quota by no more than the documented bound', async () => {
    await clients[0].send(new CreateBucketCommand({ Bucket }));
    await setQuota(gateways[0], Bucket, { maxBytes: quota });
    const uploaders = 32;
    const { accepted, outcomes, open } = await mixedLoad(clients, Bucket, { uploaders, attempts: 10, sizes, prefix: 'three', now });
    expect([...outcomes.keys()].sort()).toEqual(['403 QuotaExceeded', 'ok']);
    expect(open).toEqual([]);
    const held = await heldBytes(clients[1], Bucket);
    expect(held).toEqual({ bytes: accepted.reduce((a, b) => a + b.size, 0), objects: accepted.length });

    // bound = the others' requests in flight + what the others commit within two intervals beyond the
    // headroom, for the gateway that sees the most of it; the busiest gateway has ceil(32 / 3) = 11
    // uploaders, so the two others have at most 22 in flight
    const headroom = 0.1 * quota;
    const window = 3 * intervalMs; // two intervals + one of slack
    const blind = Math.max(...gateways.map((_, g) => mostWithin(accepted, window, (w) => w.gateway !== g)));
    const othersInFlight = uploaders - Math.floor(uploaders / gateways.length);
    const bound = othersInFlight * largest + Math.max(0, blind - headroom);
    expect(held.bytes).toBeLessThanOrEqual(quota + bound);
    // the bucket filled: the last admissions were refused within the exact headroom
    expect(held.bytes).toBeGreaterThan(quota - headroom);
    const ledger = await ledgerAfterFlush(Bucket, gateways);
    expect(ledger).toMatchObject({ source: 'ledger', bytes: held.bytes, objects: held.objects });
    full = { accepted, held: held.bytes };
  });

  it('deletes through one gateway make room for a PUT through another within seconds', async () => {
    expect(await outcome(clients[2].send(new PutObjectCommand({ Bucket, Key: 'probe', Body: Buffer.alloc(largest) })))).toBe('403 QuotaExceeded');
    let freed = 0;
    for (const { key, size } of full.accepted) {
      if (freed >= largest + Math.max(0, full.held - quota)) break;
      await clients[1].send(new DeleteObjectCommand({ Bucket, Key: key }));
      freed += size;
    }
    // README: within two intervals; the deadline is generous for a loaded machine, not a measurement
    await waitFor(
      'room after deletes through another gateway',
      async () => ((await outcome(clients[2].send(new PutObjectCommand({ Bucket, Key: 'probe', Body: Buffer.alloc(largest) })))) === 'ok' ? true : undefined),
      10_000,
      50,
    );
    expect((await heldBytes(clients[0], Bucket)).bytes).toBeLessThanOrEqual(quota);
  });

  it('a gateway SIGKILLed mid-load leaves the ledger short by at most its last interval, and a recount restores it', async () => {
    const crash = 'cheap-crash';
    await clients[0].send(new CreateBucketCommand({ Bucket: crash }));
    await setQuota(gateways[0], crash, { maxBytes: 1024 * MiB }); // far from the limit: all cheap path
    const victim = 2;
    let killedAtMs: number | undefined;
    let victimAccepted = 0;
    const uploaders = 24;
    const { accepted, outcomes, open } = await mixedLoad(clients, crash, {
      uploaders,
      attempts: 12,
      sizes,
      prefix: 'crash',
      now,
      onAccepted: (w) => {
        if (w.gateway !== victim || killedAtMs !== undefined || ++victimAccepted < 10) return;
        gateways[victim].process.signal('SIGKILL');
        killedAtMs = now();
      },
    });
    expect(killedAtMs).toBeDefined();
    expect(outcomes.get('lost')).toBeGreaterThan(0);
    expect(outcomes.get('403 QuotaExceeded')).toBeUndefined();
    await gateways[victim].process.waitForExit();
    const survivors = gateways.filter((_, g) => g !== victim);

    const held = await heldBytes(clients[0], crash, open);
    const ledger = await ledgerAfterFlush(crash, survivors);
    const short = held.bytes - ledger.bytes;
    // bound = the victim's commits answered within its last interval (+ one of slack for a late
    // timer) + its requests in flight at the kill, which may have committed without an answer
    const lastInterval = accepted.filter((w) => w.gateway === victim && w.doneAtMs >= killedAtMs! - 2 * intervalMs).reduce((a, w) => a + w.size, 0);
    const bound = lastInterval + (uploaders / gateways.length) * largest;
    expect(short).toBeGreaterThanOrEqual(0);
    expect(short).toBeLessThanOrEqual(bound);
    expect(held.objects - ledger.objects).toBeGreaterThanOrEqual(0);

    const recount = await admin<UsageAnswer>(survivors[1], 'POST', `/admin/buckets/${crash}/quota/recount`);
    expect(recount).toMatchObject({ bytes: held.bytes, objects: held.objects, drift: { bytes: 0 - short, objects: ledger.objects - held.objects } });
    for (const gw of survivors) expect(await usageOf(gw, crash)).toMatchObject({ source: 'ledger', bytes: held.bytes, objects: held.objects });
  });
});
