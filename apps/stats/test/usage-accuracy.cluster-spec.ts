/*
 * The whole-system usage accuracy drill (issue 10): concurrent S3 clients, lifecycle and scans,
 * the stats app SIGKILLed and its local store lost, current usage checked against the admin
 * recount at checkpoints. It runs in `npm run test:cluster`, not in every commit's `npm test`: it
 * waits for a 5-minute boundary to lose the local store across it, and at the end for the cut to
 * pass every bucket's last change, when usage must equal the recount exactly (10-20 minutes in all).
 * Crossing it on purpose reproduced the earlier intermittent failure at that checkpoint: once the
 * snapshot's cut passed the versioned bucket's writes, current usage took the snapshot's live keys
 * for its objects where the deltas and the recount count every version holding data; and then an
 * undercount of 10-55 %: the stats app, down across the boundary, combined the scanner's newest
 * pass at the new cut, which missed every removal since the cut (docs/drills/RESULTS.md).
 */
import {
  CreateBucketCommand,
  LifecycleRule,
  PutBucketLifecycleConfigurationCommand,
  PutBucketVersioningCommand,
} from '@aws-sdk/client-s3';
import { WINDOW_MS } from '@ostore/stats/domain';
import { waitFor } from '@ostore/testing';
import { AccuracySystem, Comparison } from './usage-accuracy.support';
import { WorkBucket, Workload } from './usage-accuracy.workload';

const CLIENTS = 6;
const buckets: WorkBucket[] = [
  { name: 'acc-plain', versioned: false },
  { name: 'acc-versioned', versioned: true },
  { name: 'acc-other', versioned: false },
];
/** Lifecycle days are 10 s here: `exp/` expires after one, noncurrent `exp/` versions after one, uploads are aborted after one. */
const rules: LifecycleRule[] = [
  {
    ID: 'expire',
    Status: 'Enabled',
    Filter: { Prefix: 'exp/' },
    Expiration: { Days: 1 },
    NoncurrentVersionExpiration: { NoncurrentDays: 1 },
  },
  {
    ID: 'abort',
    Status: 'Enabled',
    Filter: { Prefix: 'mp/' },
    AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
  },
];

/**
 * Issue 10, "What must be shown", first bullet: the stats app's current usage against an exact
 * recount of the metastore (the admin API's `bucket usage` of a bucket without a quota), over the
 * real gateway, scanner (a snapshot pass every second), scheduler (lifecycle) and stats app.
 * Several S3 clients put, overwrite, copy, delete and run multipart uploads (completed, aborted,
 * left to the lifecycle) in a versioned and two unversioned buckets while the lifecycle expires
 * objects and versions and aborts uploads; the stats app is SIGKILLed mid-run and started again,
 * once with its local store kept and once with it deleted.
 *
 * At each checkpoint the clients pause (lifecycle and scans go on) and, once every delta produced
 * has been consumed and committed (no fixed sleeps: conditions with deadlines), current usage must
 * equal the recount exactly when the snapshot's cut precedes the bucket's first write (the
 * snapshot holds nothing of it), else meet the README's bound ("Snapshots", "How exact"): lower
 * by at most what was removed between the cut and the end of the scanner's first passes at it plus
 * the parts of uploads completed in that time, higher by at most what the clients' requests in
 * flight across the cut stored. The lost-store phase
 * straddles a 5-minute boundary on purpose, so every run moves the cut past the buckets' writes.
 */
describe('usage accuracy of the whole system', () => {
  let sys: AccuracySystem;
  let work: Workload;
  const seen: { label: string; comparisons: Comparison[] }[] = [];
  const timeline: string[] = [];

  beforeAll(async () => {
    sys = await AccuracySystem.start();
    const s3 = sys.lc.s3;
    for (const b of buckets) {
      await s3.send(new CreateBucketCommand({ Bucket: b.name }));
      if (b.versioned)
        await s3.send(
          new PutBucketVersioningCommand({ Bucket: b.name, VersioningConfiguration: { Status: 'Enabled' } }),
        );
      if (b.name !== 'acc-other')
        await s3.send(
          new PutBucketLifecycleConfigurationCommand({
            Bucket: b.name,
            LifecycleConfiguration: { Rules: rules },
          }),
        );
    }
    work = new Workload(
      Array.from({ length: CLIENTS }, () => sys.lc.gateway.client()),
      buckets,
    );
  }, 180_000);
  afterAll(async () => {
    await work?.stop().catch(() => undefined);
    await sys?.stop();
  });

  const checkpoint = async (label: string, cutFrom?: number) => {
    await work.pause();
    const comparisons = await sys.agree(
      label,
      buckets.map((b) => b.name),
      { cutFrom, steps: work.spans, explain },
    );
    seen.push({ label, comparisons });
    work.resume();
  };

  /** The clients' steps on a bucket within 3 s of a cut (times relative to it, ms), for a failure's message. */
  const explain = (bucket: string, cutMs: number) =>
    work.spans
      .filter((s) => s.bucket === bucket && s.startMs < cutMs + 3000 && s.endMs > cutMs - 3000)
      .map((s) => `${s.kind} [${s.startMs - cutMs}, ${s.endMs - cutMs}] ${s.bytes} B`)
      .join('; ') || 'none';

  /** SIGKILLs the stats app while the clients go on, and starts it again while they go on. */
  const killMidRun = async (dropStore: boolean) => {
    await work.untilMore(20);
    await sys.killStats(dropStore);
    await work.untilMore(20);
    await sys.startStats();
    await work.untilMore(20);
  };

  /** Resolves at the wall-clock instant `ms` (every process of the system runs on this machine's clock). */
  const at = (ms: number) =>
    waitFor(
      `the instant ${new Date(ms).toISOString()}`,
      async () => (Date.now() >= ms ? true : undefined),
      Math.max(0, ms - Date.now()) + 5000,
      100,
    );

  /**
   * The lost-store phase across a 5-minute boundary, on purpose: the clients wait (lifecycle and
   * scans go on) until 20 s before the next boundary, write for 10 s, the stats app is SIGKILLed
   * and its store deleted 10 s before the boundary, the clients go on across it, and the app
   * starts again once they have written in the new window. The restarted app rebuilds windows of
   * both sides from Cassandra while the backlog of the old window arrives, and the snapshot's cut
   * moves to the boundary (README "Snapshots": the cut lies on the aggregate grid).
   */
  const killAcrossBoundary = async () => {
    const boundary = Math.ceil((Date.now() + 25_000) / WINDOW_MS) * WINDOW_MS;
    await work.pause();
    await at(boundary - 20_000);
    work.resume();
    await at(boundary - 10_000);
    await sys.killStats(true);
    const killedAt = Date.now();
    await at(boundary + 5_000);
    await work.untilMore(20);
    await sys.startStats();
    timeline.push(
      `boundary ${new Date(boundary).toISOString()}: stats killed ${killedAt - boundary} ms, started ${Date.now() - boundary} ms from it`,
    );
    await work.untilMore(20);
    return boundary;
  };

  it('current usage equals the recount (or meets the documented bound) at checkpoints, after SIGKILLs and a lost local store', async () => {
    work.start();
    await work.untilMore(20);
    await checkpoint('first checkpoint');

    // killed mid-run, its local store kept: the batches after its last commit come again
    await killMidRun(false);
    await checkpoint('after a SIGKILL');

    // killed mid-run and its local store lost, across a 5-minute boundary: every window is
    // rebuilt from Cassandra, and the snapshot's cut moves past the buckets' first writes
    const boundary = await killAcrossBoundary();
    await checkpoint('after a SIGKILL and a lost local store across a window boundary', boundary);

    // the lifecycle has acted meanwhile: expirations and aborts published their deltas
    await waitFor(
      'a lifecycle delta on the usage topic',
      async () => (sys.topic.records.some((r) => r.delta.source === 'scheduler') ? true : undefined),
      60_000,
      250,
    );
    await work.stop();
    const final = await sys.agree(
      'at the end',
      buckets.map((b) => b.name),
      { steps: work.spans, explain },
    );
    seen.push({ label: 'at the end', comparisons: final });
    // the clients are gone and the lifecycle runs out of work (its days are 10 s): once a cut lies
    // past each bucket's last change, the answer must be the recount exactly (README "How exact":
    // it converges within two 5-minute windows after a bucket stops changing)
    const stoppedAt = Date.now();
    const converged = await sys.agree(
      'converged after the next cut',
      buckets.map((b) => b.name),
      { steps: work.spans, explain, converged: true, timeoutMs: 12 * 60_000 },
    );
    seen.push({ label: 'converged after the next cut', comparisons: converged });
    timeline.push(`converged ${Math.round((Date.now() - stoppedAt) / 1000)} s after the clients stopped`);

    console.log(
      `${timeline.join('\n')}\nops ${JSON.stringify(work.counts)}; deltas ${sys.topic.records.length} (scheduler ${sys.topic.records.filter((r) => r.delta.source === 'scheduler').length})\n` +
        seen
          .map(
            (s) =>
              `${s.label}: ${s.comparisons
                .map(
                  (c) =>
                    `${c.bucket} ${c.rule} stats ${c.stats.bytes}/${c.stats.objects} recount ${c.recount.bytes}/${c.recount.objects} ` +
                    `(diff ${c.stats.bytes - c.recount.bytes} B/${c.stats.objects - c.recount.objects}, allowed B [${c.allowed.bytes.join(', ')}]) cut ${c.stats.cut ?? '-'}` +
                    (c.window
                      ? ` first passes end +${c.window.passesEndMs} ms (the combined ones completed +${c.window.usedPassEndMs ?? '?'} ms), removed by then ${c.window.removedBytes} B, since the cut ${c.window.removedBytesSinceCut} B`
                      : ''),
                )
                .join('; ')}`,
          )
          .join('\n'),
    );
    // every bucket held data and every kind of operation ran; the snapshots were combined
    for (const c of final) expect(c.recount.bytes).toBeGreaterThan(0);
    for (const kind of [
      'put',
      'copy',
      'delete',
      'delete-version',
      'multipart-complete',
      'multipart-abort',
      'multipart-left',
    ])
      expect(work.counts[kind] ?? 0).toBeGreaterThan(0);
    expect(final.every((c) => c.stats.cut !== undefined)).toBe(true);
    expect(converged.map((c) => c.rule)).toEqual(buckets.map(() => 'exact'));
  }, 1_800_000);
});
