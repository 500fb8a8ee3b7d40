/**
 * Micro-benchmark of the quota admission path as the gateway runs it per PUT (issue 10: "the quota
 * check's cost per PUT ≤ 0.05 ms gateway CPU, measured as a ratio against quotas off in one run").
 * The gateway-wide A/B bench (quota-cost.mjs) varies by ±0.5 ms between rounds, ten times the
 * target; this one times the quota calls alone, in one process, against a baseline of the same loop
 * with no quota call.
 *
 * One PUT here is exactly the quota calls ObjectsService.put makes, through the real VersionStore
 * and QuotaGuard of `createS3Core` (the gateway's wiring, with the real Prometheus QuotaMetrics):
 * `admitQuota` → `fitQuota` → `recordUsage` (which also reports the usage event) → `release`.
 * CopyObject, UploadPart and CompleteMultipartUpload make the same calls or a subset of them. The
 * Cassandra ledger is `InMemoryQuotaLedger` (`@ostore/s3/core/testing`), which answers at once and
 * counts its requests; the body, the metastore commit and the usage publisher are not part of it.
 *
 * Variants, each timed in every round (the order rotates per round so that drift of a shared machine
 * falls on all of them):
 * - `baseline`: the same loop, the same usage event reported, no quota call (quotas off);
 * - `no-quota`: a bucket without a quota, what every PUT pays;
 * - `far`: a quota bucket far from its limit (2^50 bytes, 10^12 objects): the shared-ledger path,
 *   one read per bucket per ledger interval, changes summed into one update per interval;
 * - `exact`: a quota bucket within the exact headroom (the last 10 %): a ledger read per admission
 *   and a ledger update per PUT written before the response.
 * CPU is process.cpuUsage() (user + system) over the round; ns per PUT are medians over rounds, and
 * ratios and differences to the baseline are taken per round, then their median.
 *
 * Ledger requests per PUT are counted apart, in paced phases at fixed PUT rates with the real clock
 * (the far path's cost is per ledger interval, not per PUT: its requests per PUT fall with the rate).
 *
 *   npm run bench -- quota-micro [--rounds 7] [--puts 200000] [--exact-puts 50000] [--rates 100,1000] [--paced-seconds 3]
 *
 * Results: tools/bench/quota/QUOTA-COST-RESULTS.md.
 */
import { loadavg } from 'os';
import type { Metastore } from '@ostore/metastore/data-access';
import { createS3Core, QuotaMetrics, type BucketKey, type UsageEvent, type UsageRecorder } from '@ostore/s3/core';
import { InMemoryQuotaLedger } from '@ostore/s3/core/testing';
import { SystemClock } from '@ostore/shared/clock';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import type { BlockManager } from '@ostore/storage/blocks';
import { gitCommit, machineInfo } from '../lib/machine';

const GiB = 2 ** 30;
/** The issue's bound: 0.05 ms of gateway CPU per PUT. */
const TARGET_NS = 50_000;
/** Every this many PUTs the loop yields to the event loop (timers: the guard's summed ledger updates). */
const YIELD_EVERY = 1_000;

interface Options {
  rounds: number;
  puts: number;
  exactPuts: number;
  rates: number[];
  pacedSeconds: number;
  size: number;
}

function parse(argv: string[]): Options {
  const o: Options = { rounds: 7, puts: 200_000, exactPuts: 50_000, rates: [100, 1_000], pacedSeconds: 3, size: 1024 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    const int = (min: number) => {
      const n = Number(value);
      if (!Number.isSafeInteger(n) || n < min) throw new Error(`${flag} needs an integer ≥ ${min}, got ${value}`);
      i++;
      return n;
    };
    if (flag === '--rounds') o.rounds = int(5);
    else if (flag === '--puts') o.puts = int(1_000);
    else if (flag === '--exact-puts') o.exactPuts = int(1_000);
    else if (flag === '--paced-seconds') o.pacedSeconds = int(1);
    else if (flag === '--size') o.size = int(1);
    else if (flag === '--rates') {
      o.rates = (value ?? '').split(',').map(Number);
      if (o.rates.length === 0 || o.rates.some((r) => !Number.isSafeInteger(r) || r < 1 || r > 100_000)) throw new Error(`--rates needs PUTs/s like 100,1000, got ${value}`);
      i++;
    } else throw new Error(`unknown option ${flag}`);
  }
  return o;
}

/** The usage recorder the gateway reports each committed change to (Kafka there; a counter here, the same in every variant). */
class CountingUsage implements UsageRecorder {
  events = 0;
  bytes = 0;
  record(event: UsageEvent): void {
    this.events++;
    this.bytes += event.bytes;
  }
}

type Variant = 'baseline' | 'no-quota' | 'far' | 'exact';
const VARIANTS: Variant[] = ['baseline', 'no-quota', 'far', 'exact'];

/** A gateway's quota machinery over the in-memory ledger: the VersionStore and QuotaGuard of createS3Core. */
function rig() {
  const ledger = new InMemoryQuotaLedger();
  const usage = new CountingUsage();
  const registry = new MetricsRegistry('bench-quota-micro', false);
  const core = createS3Core({
    // createS3Core reaches the metastore only for the quota ledger, and only when a quota bucket is written
    metastore: { quotaLedger: ledger } as unknown as Metastore,
    blocks: {} as BlockManager,
    clock: new SystemClock(),
    logger: new JsonLogger('bench-quota-micro', 'fatal'),
    usage,
    quotaMetrics: new QuotaMetrics(registry),
  });
  const buckets: Record<Exclude<Variant, 'baseline'>, BucketKey> = {
    'no-quota': { bucketId: '00000000-0000-4000-8000-000000000001', name: 'plain', versioning: 'Unversioned' },
    far: { bucketId: '00000000-0000-4000-8000-000000000002', name: 'far', versioning: 'Unversioned', quotaBytes: 2 ** 50, quotaObjects: 1e12 },
    exact: { bucketId: '00000000-0000-4000-8000-000000000003', name: 'near', versioning: 'Unversioned', quotaBytes: 10 * GiB, quotaObjects: 1e12 },
  };
  return { ledger, usage, core, buckets, store: core.store };
}
type Rig = ReturnType<typeof rig>;

/** The exact bucket starts at 9.5 GiB of 10 GiB, inside the exact headroom (max(10 %, 1 GiB)) and with room for every round. */
function resetExact(r: Rig): void {
  r.ledger.set(r.buckets.exact.bucketId, { bytes: 9.5 * GiB, objects: 0 });
}

/** One PutObject's quota calls, in ObjectsService.put's order (body, commit and error paths left out). */
async function putQuotaCalls(r: Rig, bucket: BucketKey, size: number): Promise<void> {
  const ticket = await r.store.admitQuota(bucket, { bytes: size, objects: 1 });
  try {
    await r.store.fitQuota(ticket, size, []);
    await r.store.recordUsage(bucket, 'store', size, 1, ticket);
  } finally {
    ticket?.release();
  }
}

/** The baseline: the same loop and the same usage event as recordUsage reports, with no quota call. */
async function putWithoutQuota(r: Rig, bucket: BucketKey, size: number): Promise<void> {
  r.usage.record({ bucketId: bucket.bucketId, bucket: bucket.name, kind: 'store', bytes: size, objects: 1 });
}

async function runPuts(r: Rig, v: Variant, n: number, size: number): Promise<void> {
  const bucket = v === 'baseline' ? r.buckets['no-quota'] : r.buckets[v];
  const put = v === 'baseline' ? putWithoutQuota : putQuotaCalls;
  for (let i = 0; i < n; i++) {
    await put(r, bucket, size);
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((res) => setImmediate(res));
  }
}

/** CPU and wall ns per PUT of one timed run. */
async function timed(r: Rig, v: Variant, n: number, size: number): Promise<{ cpuNs: number; wallNs: number }> {
  if (v === 'exact') resetExact(r);
  const cpu0 = process.cpuUsage();
  const wall0 = process.hrtime.bigint();
  await runPuts(r, v, n, size);
  const wallNs = Number(process.hrtime.bigint() - wall0) / n;
  const cpu = process.cpuUsage(cpu0);
  return { cpuNs: ((cpu.user + cpu.system) * 1000) / n, wallNs };
}

/** Ledger requests per PUT at a fixed PUT rate with the real clock (ticks of 10 ms). */
async function paced(v: Exclude<Variant, 'baseline'>, rate: number, seconds: number, size: number) {
  // a rig of its own: no read or summed change of the timed rounds counts here
  const fresh = rig();
  if (v === 'exact') resetExact(fresh);
  const perTick = rate / 100;
  let due = 0;
  let done = 0;
  const start = Date.now();
  for (let tick = 0; tick < seconds * 100; tick++) {
    due += perTick;
    const batch: Promise<void>[] = [];
    while (done + batch.length < Math.floor(due)) batch.push(putQuotaCalls(fresh, fresh.buckets[v], size));
    await Promise.all(batch);
    done += batch.length;
    const next = start + (tick + 1) * 10;
    await new Promise((res) => setTimeout(res, Math.max(0, next - Date.now())));
  }
  // the summed changes of the last interval are part of the path's cost: sent and counted too
  await fresh.store.quota.close();
  const { reads, writes } = fresh.ledger.requests;
  return { puts: done, reads, writes, readsPerPut: reads / done, writesPerPut: writes / done, seconds: (Date.now() - start) / 1000 };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const f1 = (x: number) => x.toFixed(1);
const f3 = (x: number) => x.toFixed(3);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export async function main(argv: string[]): Promise<number> {
  let o: Options;
  try {
    o = parse(argv);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 2;
  }
  const m = machineInfo();
  const git = gitCommit();
  const out = (s = '') => process.stdout.write(`${s}\n`);
  out(`# quota-micro ${new Date().toISOString()}`);
  out(`machine: nproc ${m.nproc}, ${m.cpuModel}, ${m.memory}, ${m.os}, node ${process.version}; commit ${git.commit.slice(0, 7)} (${git.dirty} uncommitted files)`);
  out(`command: npm run bench -- quota-micro ${argv.join(' ')}`.trimEnd());
  out(`options: ${JSON.stringify(o)}`);
  out(`load average at start: ${load()}`);

  const r = rig();
  const nOf = (v: Variant) => (v === 'exact' ? o.exactPuts : o.puts);
  // warm-up: every path compiled and the exact path's reads and writes exercised, untimed
  for (const v of VARIANTS) await timed(r, v, Math.min(nOf(v), 20_000), o.size);

  const rounds: Record<Variant, { cpuNs: number; wallNs: number }>[] = [];
  for (let round = 0; round < o.rounds; round++) {
    const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]);
    const row = {} as Record<Variant, { cpuNs: number; wallNs: number }>;
    for (const v of order) row[v] = await timed(r, v, nOf(v), o.size);
    rounds.push(row);
    out(`round ${round} (${order.join(', ')}): ${VARIANTS.map((v) => `${v} ${f1(row[v].cpuNs)} ns`).join(', ')}; load ${load()}`);
  }
  const landed = r.ledger.peek(r.buckets.far.bucketId);
  await r.store.quota.close();

  out();
  out(`CPU per PUT (process.cpuUsage, user + system), medians of ${o.rounds} rounds; baseline = the same loop with no quota call`);
  out();
  out('| path | PUTs per round | CPU ns / PUT | wall ns / PUT | ratio to baseline (median of per-round) | added CPU ns / PUT (median of per-round differences) | added vs 50 µs target |');
  out('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const v of VARIANTS) {
    const cpu = median(rounds.map((x) => x[v].cpuNs));
    const wall = median(rounds.map((x) => x[v].wallNs));
    const ratio = median(rounds.map((x) => x[v].cpuNs / x.baseline.cpuNs));
    const added = median(rounds.map((x) => x[v].cpuNs - x.baseline.cpuNs));
    const verdict = v === 'baseline' ? '' : `${((added / TARGET_NS) * 100).toFixed(2)} % (${added <= TARGET_NS ? 'PASS' : 'FAIL'})`;
    out(`| ${v} | ${nOf(v)} | ${f1(cpu)} | ${f1(wall)} | ${v === 'baseline' ? '1' : f3(ratio)} | ${v === 'baseline' ? '' : f1(added)} | ${verdict} |`);
  }
  out();
  out(`far bucket: ledger holds ${landed.bytes} bytes and ${landed.objects} objects after the timed rounds (summed updates landed); usage events reported: ${r.usage.events}`);

  out();
  out(`Ledger requests per PUT at fixed rates (real clock, ${o.pacedSeconds} s each, default ledger interval 250 ms)`);
  out();
  out('| path | PUTs/s | PUTs | ledger reads | ledger writes | reads / PUT | writes / PUT |');
  out('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const v of ['no-quota', 'far', 'exact'] as const)
    for (const rate of o.rates) {
      const p = await paced(v, rate, o.pacedSeconds, o.size);
      out(`| ${v} | ${rate} | ${p.puts} | ${p.reads} | ${p.writes} | ${p.readsPerPut.toFixed(4)} | ${p.writesPerPut.toFixed(4)} |`);
    }
  out();
  out(`load average at end: ${load()}`);
  return 0;
}
