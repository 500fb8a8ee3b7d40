/**
 * The gateway benchmark: `npm run bench -- small|large|memory|all|check|build-warp|selftest`.
 * See tools/bench/README.md. All load goes to 127.0.0.1, bounded in time.
 */
import { ChildProcess, spawn, spawnSync } from 'child_process';
import { randomBytes } from 'crypto';
import { mkdirSync, rmSync } from 'fs';
import { loadavg } from 'os';
import { join, relative } from 'path';
import { BenchArgs, parseArgs, Scenario, scenariosOf, USAGE } from './lib/args';
import { dropKeyspace, GatewayProcess, newestCpuProfile, readText, REPO_ROOT } from './lib/gateway';
import { gitCommit, machineInfo } from './lib/machine';
import { CassandraStats, diffCounts, diffOps, KeyspaceCounts, s3RequestsByOperation } from './lib/cassandra-stats';
import { CpuMeter, RssSampler } from './lib/proc';
import { loadProfile, summarizeProfile } from './lib/profile';
import { Check, CpuSplit, Measurement, mergeResults, readResults, ScenarioResult, TARGETS, writeResults } from './lib/report';
import { downloadHashed, ensureBucket, LoopResult, sdkClient, sdkPutGet, smokeTest, TransferResult, uploadGenerated } from './lib/sdk-load';
import { formatBytes, sizeLabel } from './lib/units';
import { buildWarp, findWarp, liveChildren, runWarp, WarpResult, warpVersion } from './lib/warp';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const stack = require('../stack/index.cjs');

// node 20 is the project's floor; the SDK's advice to move to 22 is noise in bench output
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const BENCH_DIR = __dirname;
const WORK_DIR = join(BENCH_DIR, '.work');
const REGION = 'us-east-1';
const MiB = 1024 ** 2;

function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

function localDate(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

function stamp(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${localDate(d).replace(/-/g, '')}_${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

const monoUs = () => Number(process.hrtime.bigint() / 1000n);
/** Wall-clock ms → the monotonic µs clock of CPU profiles. */
const wallToMonoUs = (wallMs: number) => monoUs() - (Date.now() - wallMs) * 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Undoes what the current run started (set once the gateway is being started). */
let activeTeardown: (() => Promise<void>) | undefined;

/** What a scenario runs against: endpoint, credentials, the processes whose CPU and RSS count. */
interface Target {
  endpoint: string;
  host: string;
  accessKey: string;
  secretKey: string;
  gatewayPid?: number;
  /** name → pid for the CPU split (the gateway, Cassandra, Kafka, the client). */
  pids: Record<string, number | undefined>;
  label: string;
  /** Cassandra counts of the gateway's keyspace (when known). */
  cassandra?: CassandraStats;
  /** The gateway's /metrics text (when reachable). */
  metrics?: () => Promise<string>;
}

/** Cassandra and S3 request counts around one phase (best effort: a failing probe only loses the table). */
async function countersBefore(t: Target): Promise<{ cass?: KeyspaceCounts; ops?: Record<string, number> }> {
  const cass = await t.cassandra?.snapshot().catch((e) => void log(`cassandra stats: ${(e as Error).message}`));
  const ops = t.metrics ? s3RequestsByOperation(await t.metrics()) : undefined;
  return { cass: cass ?? undefined, ops };
}

async function countersAfter(t: Target, s: ScenarioResult, phase: string, before: { cass?: KeyspaceCounts; ops?: Record<string, number> }): Promise<void> {
  if (!before.cass || !before.ops || !t.cassandra || !t.metrics) return;
  try {
    const cass = diffCounts(before.cass, await t.cassandra.snapshot());
    const ops = diffOps(before.ops, s3RequestsByOperation(await t.metrics()));
    const tables = [...cass.entries()].map(([table, d]) => ({ table, ...d })).sort((a, b) => b.reads + b.writes + b.scans - (a.reads + a.writes + a.scans));
    (s.cassandra ??= []).push({ phase, s3Requests: ops, tables });
  } catch (e) {
    log(`cassandra stats: ${(e as Error).message}`);
  }
}

interface PhaseWindow {
  scenario: string;
  phase: string;
  fromUs: number;
  toUs: number;
}

class Bench {
  readonly runStamp = stamp();
  readonly bucketTag = this.runStamp.slice(9).replace(/_/g, '');
  readonly windows: PhaseWindow[] = [];
  warpBin?: string;
  readonly commandLine: string;

  constructor(readonly args: BenchArgs, argv: string[]) {
    this.commandLine = process.env.npm_lifecycle_event === 'bench' ? `npm run bench -- ${argv.join(' ')}` : `node -r @swc-node/register tools/bench/run.ts ${argv.join(' ')}`;
  }

  /** What differs from the standard setup (kept apart in the results). */
  variant(): string {
    const a = this.args;
    const parts = [a.blockStore !== 'fs' ? `BLOCK_STORE=${a.blockStore}` : '', ...Object.entries(a.gatewayEnv).map(([k, v]) => `${k}=${v}`), a.unsignedPayload ? '' : 'signed payload'];
    return parts.filter(Boolean).join(', ');
  }

  bucket(name: string): string {
    return `bench-${this.bucketTag}-${name}`;
  }

  useWarp(): boolean {
    return this.args.client !== 'sdk' && !!this.warpBin;
  }

  useSdk(): boolean {
    return this.args.client !== 'warp' || !this.warpBin;
  }

  clients(): string[] {
    return [this.useWarp() ? 'warp' : '', this.useSdk() ? 'aws-sdk' : ''].filter(Boolean);
  }

  newScenario(name: Scenario, title: string): ScenarioResult {
    return {
      name,
      title,
      profiled: this.args.profile,
      variant: this.variant(),
      startedAt: new Date().toISOString(),
      command: this.commandLine,
      commit: (() => {
        const g = gitCommit();
        return `${g.commit}${g.dirty ? ` + ${g.dirty} uncommitted changed files in the work tree` : ''} (${g.subject})`;
      })(),
      measurements: [],
      checks: [],
      cpu: [],
      notes: [],
      raw: [],
    };
  }

  // ---------------------------------------------------------------- warp phases

  async warpPhase(
    t: Target,
    s: ScenarioResult,
    o: { op: 'put' | 'get'; bucket: string; size: number; concurrent: number; durationMs: number; objects?: number },
  ): Promise<Measurement | undefined> {
    const cpu = new CpuMeter({ ...t.pids });
    let split: ReturnType<CpuMeter['stop']> | undefined;
    const phase = `${o.op.toUpperCase()} ${sizeLabel(o.size)} warp`;
    log(`${s.name}: warp ${o.op} ${sizeLabel(o.size)} × ${o.concurrent} for ${o.durationMs / 1000}s${o.op === 'get' ? ` (after uploading ${o.objects} objects)` : ''}`);
    const counters = await countersBefore(t);
    const r: WarpResult = await runWarp(
      this.warpBin!,
      { host: t.host, accessKey: t.accessKey, secretKey: t.secretKey, region: REGION },
      {
        op: o.op,
        bucket: o.bucket,
        objectSize: sizeLabel(o.size),
        concurrent: o.concurrent,
        durationSec: Math.max(1, Math.round(o.durationMs / 1000)),
        objects: o.objects,
        disableMultipart: true,
        unsignedPayload: this.args.unsignedPayload,
        benchdata: join(WORK_DIR, this.runStamp, `${s.name}-${o.op}`),
      },
      { onStart: () => cpu.start(), onEnd: () => (split = cpu.stop()) },
    );
    await countersAfter(t, s, `${phase}${o.op === 'get' ? ' (incl. its upload of the objects first)' : ''}`, counters);
    s.raw.push({ label: `${r.command.join(' ')}  (exit ${r.exitCode})`, text: r.output });
    if (split) s.cpu.push({ phase: `${phase}${o.op === 'get' ? ' (incl. its upload of the objects first)' : ''}`, seconds: split.seconds, machineBusyPct: split.machineBusyPct, perProcess: split.perProcess });
    if (r.totals?.startTime && r.totals.endTime) {
      this.windows.push({ scenario: s.name, phase, fromUs: wallToMonoUs(Date.parse(r.totals.startTime)), toUs: wallToMonoUs(Date.parse(r.totals.endTime)) });
    } else {
      this.windows.push({ scenario: s.name, phase, fromUs: wallToMonoUs(r.startedAt), toUs: wallToMonoUs(r.endedAt) });
    }
    if (!r.report || !Number.isFinite(r.report.objPerSec)) {
      const why = `warp ${o.op} produced no report (exit ${r.exitCode}): ${r.output.trim().split('\n').slice(-3).join(' / ').slice(0, 400)}`;
      s.error = s.error ? `${s.error}\n${why}` : why;
      log(why);
      return undefined;
    }
    const rep = r.report;
    const m: Measurement = {
      label: phase,
      client: 'warp',
      op: o.op === 'put' ? 'PUT' : 'GET',
      objectSize: o.size,
      concurrency: rep.concurrency,
      seconds: rep.ranSec,
      requests: r.totals?.requests ?? NaN,
      errors: Math.max(rep.errors, r.totals?.errors ?? 0),
      objPerSec: rep.objPerSec,
      mibPerSec: rep.mibPerSec,
      latencyMs: rep.latencyMs,
      firstErrors: r.totals?.firstErrors?.slice(0, 5),
    };
    log(`${s.name}: ${m.op} ${m.objPerSec.toFixed(1)} obj/s, ${m.mibPerSec.toFixed(1)} MiB/s, p99 ${m.latencyMs?.p99 ?? '?'} ms, errors ${m.errors}`);
    return m;
  }

  /** The unmeasured warm-up of `small` (see BenchArgs.warmupMs): half PUT, half GET, results dropped. */
  async warmup(t: Target, s: ScenarioResult): Promise<void> {
    const a = this.args;
    const half = Math.max(1, Math.round(a.warmupMs / 2000));
    log(`${s.name}: warm-up, warp put then get ${sizeLabel(a.smallSize)} × ${a.smallConcurrency}, ${half}s each (not measured)`);
    for (const op of ['put', 'get'] as const) {
      const r = await runWarp(
        this.warpBin!,
        { host: t.host, accessKey: t.accessKey, secretKey: t.secretKey, region: REGION },
        {
          op,
          bucket: this.bucket(`small-warmup-${op}`),
          objectSize: sizeLabel(a.smallSize),
          concurrent: a.smallConcurrency,
          durationSec: half,
          objects: op === 'get' ? 500 : undefined,
          disableMultipart: true,
          unsignedPayload: a.unsignedPayload,
          benchdata: join(WORK_DIR, this.runStamp, `${s.name}-warmup-${op}`),
        },
        {},
      );
      if (r.exitCode !== 0) log(`${s.name}: warm-up ${op} exited ${r.exitCode} (ignored)`);
    }
    s.notes.push(
      `Before the measured phases, ${half * 2} s of warp PUT then GET on scratch buckets warmed up the JVMs (not measured; \`--warmup 0\` skips it).`,
    );
  }

  // ---------------------------------------------------------------- sdk phases

  async sdkPhases(t: Target, s: ScenarioResult, o: { bucket: string; size: number; concurrency: number; durationMs: number }): Promise<Measurement[]> {
    const client = sdkClient({ endpoint: t.endpoint, region: REGION, accessKeyId: t.accessKey, secretAccessKey: t.secretKey }, o.concurrency);
    const pids = t.pids;
    let cpu = new CpuMeter(pids);
    const splits: CpuSplit[] = [];
    const label = (op: string) => `${op} ${sizeLabel(o.size)} aws-sdk`;
    log(`${s.name}: aws-sdk PUT then GET ${sizeLabel(o.size)} × ${o.concurrency}, ${o.durationMs / 1000}s each`);
    let phase = 'put' as 'put' | 'get';
    let counters = await countersBefore(t);
    const { put, get } = await sdkPutGet(client, o.bucket, {
      objectSize: o.size,
      concurrency: o.concurrency,
      durationMs: o.durationMs,
      keyPrefix: 'sdk',
      onPhase: async (p) => {
        if (p === 'get') {
          const r = cpu.stop();
          splits.push({ phase: label('PUT'), seconds: r.seconds, machineBusyPct: r.machineBusyPct, perProcess: r.perProcess });
          await countersAfter(t, s, label('PUT'), counters);
          counters = await countersBefore(t);
        }
        phase = p;
        cpu = new CpuMeter(pids).start();
      },
    }).finally(() => client.destroy());
    const r = cpu.stop();
    if (phase === 'get') {
      splits.push({ phase: label('GET'), seconds: r.seconds, machineBusyPct: r.machineBusyPct, perProcess: r.perProcess });
      await countersAfter(t, s, label('GET'), counters);
    }
    s.cpu.push(...splits);
    const toM = (l: LoopResult, op: 'PUT' | 'GET'): Measurement => {
      this.windows.push({ scenario: s.name, phase: label(op), fromUs: l.monoStartUs, toUs: l.monoEndUs });
      return {
        label: label(op),
        client: 'aws-sdk',
        op,
        objectSize: o.size,
        concurrency: o.concurrency,
        seconds: l.elapsedMs / 1000,
        requests: l.ops + l.errors,
        errors: l.errors,
        objPerSec: l.objPerSec,
        mibPerSec: l.mibPerSec,
        latencyMs: l.latencyMs,
        firstErrors: l.firstErrors,
      };
    };
    const ms = [toM(put, 'PUT'), toM(get, 'GET')];
    for (const m of ms) log(`${s.name}: ${m.op} (aws-sdk) ${m.objPerSec.toFixed(1)} obj/s, ${m.mibPerSec.toFixed(1)} MiB/s, p99 ${m.latencyMs?.p99.toFixed(1)} ms, errors ${m.errors}`);
    s.raw.push({ label: `aws-sdk load generator (${s.name})`, text: JSON.stringify({ put, get }, null, 2) });
    return ms;
  }

  // ---------------------------------------------------------------- scenarios

  async small(t: Target): Promise<ScenarioResult> {
    const a = this.args;
    const s = this.newScenario('small', `small — ${sizeLabel(a.smallSize)} objects, ${a.smallConcurrency} concurrent clients`);
    const ms: Measurement[] = [];
    if (this.useWarp() && a.warmupMs > 0) await this.warmup(t, s);
    if (this.useWarp()) {
      const put = await this.warpPhase(t, s, { op: 'put', bucket: this.bucket('small-put'), size: a.smallSize, concurrent: a.smallConcurrency, durationMs: a.smallDurationMs });
      if (put) ms.push(put);
      const get = await this.warpPhase(t, s, { op: 'get', bucket: this.bucket('small-get'), size: a.smallSize, concurrent: a.smallConcurrency, durationMs: a.smallDurationMs, objects: a.smallObjects });
      if (get) ms.push(get);
    }
    if (this.useSdk()) ms.push(...(await this.sdkPhases(t, s, { bucket: this.bucket('small-sdk'), size: a.smallSize, concurrency: a.smallConcurrency, durationMs: a.smallDurationMs })));
    s.measurements = ms;
    for (const m of ms) {
      const goal = m.op === 'PUT' ? TARGETS.smallPutObjPerSec : TARGETS.smallGetObjPerSec;
      s.checks.push({ what: `${m.op} objects/s (${m.client})`, target: `≥ ${goal}`, measured: m.objPerSec.toFixed(1), pass: m.objPerSec >= goal });
      const p99 = m.latencyMs?.p99 ?? NaN;
      s.checks.push({ what: `${m.op} p99 latency (${m.client})`, target: `< ${TARGETS.smallP99Ms} ms`, measured: `${p99.toFixed(1)} ms (p50 ${m.latencyMs?.p50.toFixed(1)}, p90 ${m.latencyMs?.p90.toFixed(1)})`, pass: p99 < TARGETS.smallP99Ms });
      s.checks.push(errorCheck(m));
    }
    s.notes.push(...this.commonNotes());
    if (this.useWarp()) {
      s.notes.push(
        "warp's numbers are its steady-state report: it leaves out the first and last partial seconds, so `measured s` is a little shorter than the phase; `requests` counts the whole phase.",
        `warp get first uploads ${a.smallObjects} objects (not measured), then GETs random ones of them.`,
      );
    }
    return s;
  }

  async large(t: Target): Promise<ScenarioResult> {
    const a = this.args;
    const s = this.newScenario('large', `large — ${sizeLabel(a.largeSize)} objects, ${a.largeConcurrency} concurrent clients`);
    const ms: Measurement[] = [];
    if (this.useWarp()) {
      const put = await this.warpPhase(t, s, { op: 'put', bucket: this.bucket('large-put'), size: a.largeSize, concurrent: a.largeConcurrency, durationMs: a.largeDurationMs });
      if (put) ms.push(put);
      const get = await this.warpPhase(t, s, { op: 'get', bucket: this.bucket('large-get'), size: a.largeSize, concurrent: a.largeConcurrency, durationMs: a.largeDurationMs, objects: a.largeObjects });
      if (get) ms.push(get);
    }
    if (this.useSdk()) ms.push(...(await this.sdkPhases(t, s, { bucket: this.bucket('large-sdk'), size: a.largeSize, concurrency: a.largeConcurrency, durationMs: a.largeDurationMs })));
    s.measurements = ms;
    for (const m of ms) {
      s.checks.push({ what: `${m.op} MiB/s (${m.client})`, target: `≥ ${TARGETS.largeMiBPerSec}`, measured: `${m.mibPerSec.toFixed(1)} (${m.objPerSec.toFixed(2)} obj/s, p50 ${m.latencyMs?.p50.toFixed(0)} ms)`, pass: m.mibPerSec >= TARGETS.largeMiBPerSec });
      s.checks.push(errorCheck(m));
    }
    s.notes.push(...this.commonNotes(), `Each object is one PUT (no multipart) of ${sizeLabel(a.largeSize)}; warp get first uploads ${a.largeObjects} objects (not measured).`);
    return s;
  }

  async memory(t: Target): Promise<ScenarioResult> {
    const a = this.args;
    const s = this.newScenario('memory', `memory — gateway RSS while one ${sizeLabel(a.memorySize)} object goes up and down`);
    if (!t.gatewayPid) {
      s.error = 'no gateway pid to sample (with --endpoint, pass --gateway-pid)';
      return s;
    }
    const client = sdkClient({ endpoint: t.endpoint, region: REGION, accessKeyId: t.accessKey, secretAccessKey: t.secretKey }, a.queueSize + 2, 30 * 60_000);
    const bucket = this.bucket('memory');
    const key = `big/${sizeLabel(a.memorySize)}.bin`;
    const sampler = new RssSampler(t.gatewayPid, a.rssIntervalMs).start();
    const pids = t.pids;
    try {
      await ensureBucket(client, bucket);
      await sleep(1000);
      sampler.mark('upload');
      let counters = await countersBefore(t);
      let cpu = new CpuMeter(pids).start();
      let up: TransferResult | undefined;
      const mode = a.memoryMode === 'single' ? 'single' : 'multipart';
      log(`memory: uploading ${formatBytes(a.memorySize)} (${mode === 'multipart' ? `lib-storage, ${sizeLabel(a.partSize)} parts × ${a.queueSize}` : 'one PutObject'})`);
      try {
        up = await uploadGenerated(client, bucket, key, a.memorySize, { mode, partSize: a.partSize, queueSize: a.queueSize });
      } catch (e) {
        if (a.memoryMode !== 'auto') throw e;
        const err = e as Error;
        s.notes.push(`Multipart upload failed (${err.name}: ${err.message.slice(0, 200)}); fell back to one streamed PutObject.`);
        log(`memory: multipart failed (${err.name}: ${err.message.slice(0, 200)}); one streamed PutObject instead`);
        up = await uploadGenerated(client, bucket, key, a.memorySize, { mode: 'single', partSize: a.partSize, queueSize: a.queueSize });
      }
      let c = cpu.stop();
      await countersAfter(t, s, `upload ${sizeLabel(a.memorySize)}`, counters);
      counters = await countersBefore(t);
      s.cpu.push({ phase: `upload ${sizeLabel(a.memorySize)}`, seconds: c.seconds, machineBusyPct: c.machineBusyPct, perProcess: c.perProcess });
      this.windows.push({ scenario: 'memory', phase: `upload ${sizeLabel(a.memorySize)}`, fromUs: up.monoStartUs, toUs: up.monoEndUs });
      log(`memory: upload ${up.mibPerSec.toFixed(1)} MiB/s, gateway RSS max ${(sampler.max('upload') / MiB).toFixed(0)} MiB`);
      sampler.mark('download');
      cpu = new CpuMeter(pids).start();
      const down = await downloadHashed(client, bucket, key);
      c = cpu.stop();
      await countersAfter(t, s, `download ${sizeLabel(a.memorySize)}`, counters);
      s.cpu.push({ phase: `download ${sizeLabel(a.memorySize)}`, seconds: c.seconds, machineBusyPct: c.machineBusyPct, perProcess: c.perProcess });
      this.windows.push({ scenario: 'memory', phase: `download ${sizeLabel(a.memorySize)}`, fromUs: down.monoStartUs, toUs: down.monoEndUs });
      log(`memory: download ${down.mibPerSec.toFixed(1)} MiB/s, gateway RSS max ${(sampler.max('download') / MiB).toFixed(0)} MiB`);
      sampler.mark('after');
      await sleep(1000);
      sampler.stop();

      const maxUp = sampler.max('upload') / MiB;
      const maxDown = sampler.max('download') / MiB;
      const hwm = sampler.highWaterMark();
      s.memory = {
        baselineMiB: sampler.max('start') / MiB,
        maxUploadMiB: maxUp,
        maxDownloadMiB: maxDown,
        maxMiB: Math.max(maxUp, maxDown),
        hwmMiB: hwm !== undefined ? hwm / MiB : undefined,
        samples: sampler.samples.length,
        intervalMs: a.rssIntervalMs,
        series: rssSeries(sampler),
      };
      const transfer = (op: 'UPLOAD' | 'DOWNLOAD', r: TransferResult): Measurement => ({
        label: `${op} ${sizeLabel(a.memorySize)}`,
        client: `aws-sdk (${r.mode})`,
        op,
        objectSize: a.memorySize,
        concurrency: 1,
        seconds: r.ms / 1000,
        requests: 1,
        errors: 0,
        objPerSec: 1000 / r.ms,
        mibPerSec: r.mibPerSec,
      });
      s.measurements = [transfer('UPLOAD', up), transfer('DOWNLOAD', down)];
      s.checks.push(
        { what: `gateway RSS max during upload`, target: `< ${TARGETS.memoryMaxRssMiB} MiB`, measured: `${maxUp.toFixed(0)} MiB`, pass: maxUp < TARGETS.memoryMaxRssMiB },
        { what: `gateway RSS max during download`, target: `< ${TARGETS.memoryMaxRssMiB} MiB`, measured: `${maxDown.toFixed(0)} MiB`, pass: maxDown < TARGETS.memoryMaxRssMiB },
        { what: 'content round-trips (SHA-256 up = down)', target: 'equal', measured: up.sha256 === down.sha256 && down.bytes === a.memorySize ? `equal (${formatBytes(down.bytes)})` : `differs: ${down.bytes} bytes`, pass: up.sha256 === down.sha256 && down.bytes === a.memorySize },
      );
      s.raw.push({ label: 'transfers', text: JSON.stringify({ upload: up, download: down }, null, 2) });
      s.notes.push(
        `The body is generated while it is sent (1 MiB blocks, SHA-256 on the fly) and hashed while it is received; neither side keeps it.`,
        `VmHWM is the kernel's peak over the whole process life, start-up and earlier scenarios of the same gateway included; the check uses the samples of the two phases.`,
      );
    } catch (e) {
      sampler.stop();
      const err = e as Error & { $metadata?: { httpStatusCode?: number } };
      s.error = `${err.name} ${err.$metadata?.httpStatusCode ?? ''}: ${err.message}`.slice(0, 500);
      log(`memory: failed: ${s.error}`);
    } finally {
      client.destroy();
    }
    return s;
  }

  commonNotes(): string[] {
    const n: string[] = [];
    if (this.useWarp()) {
      n.push(
        `warp flags pinned: --noclear, fixed --duration (no --autoterm), fixed --obj.size (no --obj.randsize), --disable-multipart, --lookup path, --region ${REGION}, plain HTTP to 127.0.0.1${this.args.unsignedPayload ? ', --disable-sha256-payload (UNSIGNED-PAYLOAD: no client-side SHA-256, no aws-chunked signing)' : ' (streaming-signed aws-chunked bodies)'}.`,
      );
    }
    if (this.useSdk()) n.push('aws-sdk: @aws-sdk/client-s3 with keep-alive sockets = concurrency, bodies as streams (UNSIGNED-PAYLOAD), flexible checksums off (WHEN_REQUIRED), maxAttempts 1.');
    if (this.args.client !== 'sdk' && !this.warpBin) n.push('warp was not found (npm run bench -- build-warp), so the aws-sdk load generator ran instead.');
    return n;
  }
}

function envText(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([k, v]) => `, ${k}=${v}`)
    .join('');
}

function errorCheck(m: Measurement): Check {
  return { what: `${m.op} errors (${m.client})`, target: '0', measured: String(m.errors), pass: m.errors === 0 && m.requests !== 0 };
}

/** RSS in MiB, the max of each second, as one line. */
function rssSeries(s: RssSampler): string {
  const perSec = new Map<number, { rss: number; phase: string }>();
  for (const x of s.samples) {
    const sec = Math.floor(x.t / 1000);
    const cur = perSec.get(sec);
    if (!cur || x.rss > cur.rss) perSec.set(sec, { rss: x.rss, phase: x.phase });
  }
  let phase = '';
  const parts: string[] = [];
  for (const [sec, v] of [...perSec.entries()].sort((a, b) => a[0] - b[0])) {
    if (v.phase !== phase) {
      phase = v.phase;
      parts.push(`[${phase}]`);
    }
    parts.push(`${sec}s:${(v.rss / MiB).toFixed(0)}`);
  }
  return parts.join(' ');
}

// ---------------------------------------------------------------- environment

interface Environment {
  target: Target;
  tools: Record<string, string>;
  /** Stops what this run started, best effort; idempotent. */
  teardown: () => Promise<void>;
  gateway?: GatewayProcess;
  profileFile: () => string | undefined;
}

async function stackPids(): Promise<{ cassandra?: number; kafka?: number; cassandraRelease?: string }> {
  try {
    const st = await stack.status({ probe: true });
    const node1 = st.cassandra?.nodes?.[0];
    return { cassandra: node1?.pid ?? undefined, kafka: st.kafka?.pid ?? undefined, cassandraRelease: node1?.release ?? undefined };
  } catch {
    return {};
  }
}

async function startEnvironment(bench: Bench): Promise<Environment> {
  const a = bench.args;
  if (a.endpoint) {
    const pids = await stackPids();
    return {
      target: {
        endpoint: a.endpoint,
        host: a.endpoint.replace(/^http:\/\//, ''),
        accessKey: a.accessKey!,
        secretKey: a.secretKey!,
        gatewayPid: a.gatewayPid,
        pids: { gateway: a.gatewayPid, cassandra: pids.cassandra, kafka: pids.kafka, 'client+children': process.pid },
        label: `gateway at ${a.endpoint} (not started by the bench)`,
      },
      tools: { gateway: `running at ${a.endpoint}`, ...(pids.cassandraRelease ? { cassandra: pids.cassandraRelease } : {}) },
      teardown: async () => undefined,
      profileFile: () => undefined,
    };
  }

  log('stack: ensureStackUp()');
  const info = await stack.ensureStackUp({ log: (m: string) => log(`stack: ${m}`) });
  const pids = await stackPids();
  const keyspace = a.keyspace ?? `bench_${bench.runStamp}`;
  const blockDir = join(WORK_DIR, bench.runStamp, 'blocks');
  const profileDir = a.profile ? join(WORK_DIR, bench.runStamp, 'cpuprofile') : undefined;
  const credentials = { user: 'bench', accessKeyId: `BENCH${randomBytes(8).toString('hex').toUpperCase()}`, secretAccessKey: randomBytes(24).toString('base64url') };
  const gateway = new GatewayProcess({
    keyspace,
    cluster: 'bench',
    cassandraHost: info.cassandra.host,
    cassandraPort: info.cassandra.port,
    kafkaBrokers: info.kafka.brokers,
    credentials,
    blockStore: a.blockStore,
    blockDir,
    logFile: join(WORK_DIR, bench.runStamp, 'gateway.log'),
    cpuProfileDir: profileDir,
    runtime: a.runtime,
    extraEnv: a.gatewayEnv,
  });
  const cassandraStats = new CassandraStats(info.cassandra.clientOptions, keyspace);
  let torn = false;
  const teardown = async () => {
    if (torn) return;
    torn = true;
    await cassandraStats.close();
    log('stopping the gateway');
    await gateway.stop().catch((e) => log(`gateway stop: ${(e as Error).message}`));
    if (!a.keep) {
      log(`dropping keyspace ${keyspace}, removing ${relative(REPO_ROOT, blockDir)}`);
      await dropKeyspace(info.cassandra.clientOptions, keyspace).catch((e) => log(`drop keyspace: ${(e as Error).message}`));
      rmSync(blockDir, { recursive: true, force: true });
      rmSync(`${blockDir}-cold`, { recursive: true, force: true });
    } else {
      log(`kept keyspace ${keyspace} and ${blockDir}`);
    }
    if (info.startedByUs) {
      log('stack: it was not running before the bench, so stackDown()');
      await stack.stackDown({}).catch((e: Error) => log(`stack down: ${e.message}`));
    }
  };
  activeTeardown = teardown;
  log(`gateway: starting (keyspace ${keyspace}, block store ${a.blockStore}${a.profile ? ', --cpu-prof' : ''})`);
  try {
    if (a.runtime === 'dist') buildDist();
    await gateway.start();
  } catch (e) {
    await teardown();
    throw e;
  }
  log(`gateway: ready at ${gateway.endpoint} (pid ${gateway.pid})`);
  return {
    target: {
      endpoint: gateway.endpoint,
      host: gateway.host,
      accessKey: credentials.accessKeyId,
      secretKey: credentials.secretAccessKey,
      gatewayPid: gateway.pid,
      pids: { gateway: gateway.pid, cassandra: pids.cassandra, kafka: pids.kafka, 'client+children': process.pid },
      label: `gateway started by the bench (keyspace ${keyspace}, BLOCK_STORE=${a.blockStore}, LOG_LEVEL=warn${envText(a.gatewayEnv)})`,
      cassandra: cassandraStats,
      metrics: () => gateway.metrics(),
    },
    tools: {
      gateway: `apps/gateway via ${a.runtime === 'dist' ? 'node dist/apps/gateway/src/main.js (npm run build)' : 'node -r @swc-node/register'}, BLOCK_STORE=${a.blockStore}, LOG_LEVEL=warn${envText(a.gatewayEnv)}, keyspace ${keyspace}`,
      ...(pids.cassandraRelease ? { cassandra: `${pids.cassandraRelease} (local stack, same machine)` } : {}),
    },
    teardown,
    gateway,
    profileFile: () => (profileDir ? newestCpuProfile(profileDir) : undefined),
  };
}

/** `npm run build`: the gateway then runs from dist/ as it does in production images. */
function buildDist(): void {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'tools', 'build', 'build.mjs')], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm run build failed (${r.status}): ${r.stderr || r.stdout}`);
  log(r.stdout.trim());
}

/** Spawns the fake S3 (selftest) as its own process; resolves with its address once it listens. */
async function startFakeS3(profileDir?: string): Promise<{ child: ChildProcess; host: string }> {
  const nodeArgs = ['-r', '@swc-node/register'];
  if (profileDir) nodeArgs.push('--cpu-prof', '--cpu-prof-dir', profileDir);
  const child = spawn(process.execPath, [...nodeArgs, join(BENCH_DIR, 'lib', 'fake-s3-main.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, SWC_NODE_PROJECT: join(REPO_ROOT, 'tsconfig.base.json') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  const host = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error('fake S3 did not start within 60 s')), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      text += d.toString();
      const m = /listening (\S+)/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`fake S3 exited (${code})`)));
  });
  return { child, host };
}

// ---------------------------------------------------------------- commands

function resultsPaths(bench: Bench, date: string): { json: string; md: string; analysis: string } {
  const dir = bench.args.out ?? join(BENCH_DIR, 'results');
  return { json: join(dir, `${date}-gateway.json`), md: join(dir, `${date}-gateway.md`), analysis: join(dir, `${date}-gateway.analysis.md`) };
}

function record(bench: Bench, tools: Record<string, string>, s: ScenarioResult, date: string): string {
  const paths = resultsPaths(bench, date);
  const machine = machineInfo(process.env.OSTORE_JAVA ?? safeJava());
  const merged = mergeResults(readResults(paths.json), { date, machine, tools }, s);
  writeResults(paths.json, paths.md, merged, readText(paths.analysis));
  return paths.md;
}

function safeJava(): string {
  try {
    return stack.findJava17() ?? 'java';
  } catch {
    return 'java';
  }
}

function toolVersions(bench: Bench): Record<string, string> {
  const t: Record<string, string> = {};
  if (bench.warpBin && bench.args.client !== 'sdk') t.warp = `${warpVersion(bench.warpBin)} (${bench.warpBin})`;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    t['aws-sdk'] = `@aws-sdk/client-s3 ${require('@aws-sdk/client-s3/package.json').version}, @aws-sdk/lib-storage ${require('@aws-sdk/lib-storage/package.json').version}`;
  } catch {
    // package.json not exported: leave it out
  }
  return t;
}

async function runScenarios(bench: Bench, scenarios: Scenario[]): Promise<number> {
  const a = bench.args;
  if (a.client !== 'sdk' && scenarios.some((s) => s !== 'memory')) {
    bench.warpBin = findWarp();
    if (!bench.warpBin) log(`warp not found (build it: npm run bench -- build-warp); ${a.client === 'warp' ? 'using the aws-sdk load generator instead' : 'aws-sdk only'}`);
  }
  if (a.dryRun) {
    log(`would run ${scenarios.join(', ')} with ${bench.clients().join(' + ') || 'aws-sdk'}; warp: ${bench.warpBin ?? 'none'}`);
    return 0;
  }
  const date = localDate();
  const env = await startEnvironment(bench);
  const tools = { ...toolVersions(bench), ...env.tools };
  const done: ScenarioResult[] = [];
  let failed = false;
  try {
    const client = sdkClient({ endpoint: env.target.endpoint, region: REGION, accessKeyId: env.target.accessKey, secretAccessKey: env.target.secretKey }, 4, 30_000);
    const smoke = await smokeTest(client, bench.bucket('smoke')).finally(() => client.destroy());
    for (const line of smoke.steps) log(`check: ${line}`);
    if (!smoke.ok) {
      log('the gateway does not serve PutObject/GetObject yet: nothing measured, no results written');
      return 3;
    }
    const startLoad: Record<string, string> = {};
    for (const name of scenarios) {
      startLoad[name] = loadavg().map((l) => l.toFixed(2)).join(' ');
      const s = name === 'small' ? await bench.small(env.target) : name === 'large' ? await bench.large(env.target) : await bench.memory(env.target);
      s.notes.unshift(`Target: ${env.target.label}.`, `Load average when the scenario started: ${startLoad[name]}.`);
      done.push(s);
      failed ||= !!s.error || s.checks.some((c) => !c.pass);
      log(`${name}: ${s.checks.filter((c) => c.pass).length}/${s.checks.length} checks pass → ${relative(REPO_ROOT, record(bench, tools, s, date))}`);
    }
  } finally {
    await env.teardown();
  }
  const profile = env.profileFile();
  if (profile) {
    log(`summarizing CPU profile ${relative(REPO_ROOT, profile)}`);
    const p = loadProfile(profile);
    for (const s of done) {
      const phases = bench.windows.filter((w) => w.scenario === s.name).map((w) => ({ phase: w.phase, summary: summarizeProfile(p, w.fromUs, w.toUs) }));
      s.profile = { file: relative(REPO_ROOT, profile), phases };
      record(bench, tools, s, date);
      for (const ph of phases) log(`profile ${s.name} / ${ph.phase}: ${ph.summary.selfByFunction.slice(0, 5).map((h) => `${h.name} ${h.pct.toFixed(1)}%`).join(', ')}`);
    }
  } else if (a.profile && !a.endpoint) {
    log('no CPU profile was written (did the gateway exit gracefully?)');
  }
  log(`results: ${relative(REPO_ROOT, resultsPaths(bench, date).md)}`);
  return failed ? 1 : 0;
}

async function check(bench: Bench): Promise<number> {
  const env = await startEnvironment(bench);
  try {
    const client = sdkClient({ endpoint: env.target.endpoint, region: REGION, accessKeyId: env.target.accessKey, secretAccessKey: env.target.secretKey }, 4, 30_000);
    const smoke = await smokeTest(client, bench.bucket('smoke')).finally(() => client.destroy());
    for (const line of smoke.steps) process.stdout.write(`${line}\n`);
    process.stdout.write(smoke.ok ? 'gateway serves S3: ready to benchmark\n' : 'gateway does not serve S3 yet\n');
    return smoke.ok ? 0 : 3;
  } finally {
    await env.teardown();
  }
}

/** Every scenario, briefly, against the in-memory fake S3: proves the tooling, measures nothing real. */
async function selftest(bench: Bench): Promise<number> {
  const a = bench.args;
  // warp skips its report below ~3 measured seconds (it leaves out the first and last partial ones)
  a.smallDurationMs = Math.min(a.smallDurationMs, 7000);
  a.largeDurationMs = Math.min(a.largeDurationMs, 7000);
  a.smallObjects = Math.min(a.smallObjects, 200);
  a.largeObjects = Math.min(a.largeObjects, 4);
  a.largeSize = Math.min(a.largeSize, 16 * MiB);
  a.memorySize = Math.min(a.memorySize, 256 * MiB);
  if (a.client === 'warp') a.client = 'both';
  bench.warpBin = findWarp();
  const profileDir = a.profile ? join(WORK_DIR, bench.runStamp, 'cpuprofile') : undefined;
  const fake = await startFakeS3(profileDir);
  log(`selftest: fake S3 at ${fake.host} (pid ${fake.child.pid}); warp: ${bench.warpBin ?? 'none (sdk only)'}`);
  const target: Target = {
    endpoint: `http://${fake.host}`,
    host: fake.host,
    accessKey: 'AKIASELFTESTSELFTEST',
    secretKey: 'selftest-secret-selftest-secret',
    gatewayPid: fake.child.pid,
    pids: { 'fake S3': fake.child.pid, 'client+children': process.pid },
    label: 'in-memory fake S3 (selftest)',
  };
  const date = localDate();
  const out = a.out ?? join(WORK_DIR, 'selftest');
  bench.args.out = out;
  const problems: string[] = [];
  const done: ScenarioResult[] = [];
  try {
    for (const name of scenariosOf('selftest')) {
      const s = name === 'small' ? await bench.small(target) : name === 'large' ? await bench.large(target) : await bench.memory(target);
      done.push(s);
      if (s.error) problems.push(`${name}: ${s.error}`);
      for (const m of s.measurements) {
        if (!(m.objPerSec > 0) || m.errors) problems.push(`${name}: ${m.op} ${m.client}: ${m.objPerSec} obj/s, ${m.errors} errors`);
        if ((m.op === 'PUT' || m.op === 'GET') && !(m.latencyMs && m.latencyMs.p99 > 0)) problems.push(`${name}: ${m.op} ${m.client}: no latency percentiles`);
      }
      const expected = (name === 'memory' ? 2 : 2 * bench.clients().length) as number;
      if (s.measurements.length !== expected) problems.push(`${name}: ${s.measurements.length} measurements, expected ${expected}`);
      if (name === 'memory' && !(s.memory && s.memory.samples > 5 && s.memory.maxMiB > 0)) problems.push('memory: RSS sampler got no samples');
      record(bench, { selftest: 'fake S3, not the gateway' }, s, date);
    }
  } finally {
    fake.child.kill('SIGTERM');
    await new Promise((r) => (fake.child.exitCode !== null ? r(null) : fake.child.once('exit', r)));
  }
  if (profileDir) {
    const file = newestCpuProfile(profileDir);
    if (!file) problems.push('no CPU profile written by the fake S3');
    else {
      const p = loadProfile(file);
      for (const s of done) {
        s.profile = { file: relative(REPO_ROOT, file), phases: bench.windows.filter((w) => w.scenario === s.name).map((w) => ({ phase: w.phase, summary: summarizeProfile(p, w.fromUs, w.toUs) })) };
        if (!s.profile.phases.some((ph) => ph.summary.sampledMs > 0)) problems.push(`${s.name}: profile windows hold no samples`);
        record(bench, { selftest: 'fake S3, not the gateway' }, s, date);
      }
    }
  }
  log(`selftest results: ${relative(REPO_ROOT, join(out, `${date}-gateway.md`))}`);
  if (problems.length) {
    for (const p of problems) log(`selftest problem: ${p}`);
    return 1;
  }
  log('selftest: ok');
  return 0;
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  let args: BenchArgs;
  try {
    args = parseArgs(argv);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const bench = new Bench(args, argv);
  mkdirSync(WORK_DIR, { recursive: true });
  switch (args.command) {
    case 'help':
      process.stdout.write(USAGE);
      return 0;
    case 'build-warp': {
      const bin = buildWarp(log);
      process.stdout.write(`${bin}\n`);
      return 0;
    }
    case 'profile-summary': {
      const s = summarizeProfile(loadProfile(args.file!));
      process.stdout.write(JSON.stringify(s, null, 2) + '\n');
      return 0;
    }
    case 'check':
      return check(bench);
    case 'report': {
      const paths = resultsPaths(bench, args.date ?? localDate());
      const results = readResults(paths.json);
      if (!results) {
        process.stderr.write(`no results at ${relative(REPO_ROOT, paths.json)}\n`);
        return 1;
      }
      writeResults(paths.json, paths.md, results, readText(paths.analysis));
      process.stdout.write(`${relative(REPO_ROOT, paths.md)}\n`);
      return 0;
    }
    case 'selftest':
      return selftest(bench);
    default:
      return runScenarios(bench, scenariosOf(args.command));
  }
}

// Bounded in time whatever happens: a watchdog ends the run (and what it started) after 60 minutes.
const WATCHDOG_MS = Number(process.env.OSTORE_BENCH_MAX_MS ?? 60 * 60_000);
const watchdog = setTimeout(() => void shutdown('watchdog: the bench ran longer than its limit', 4), WATCHDOG_MS);
watchdog.unref();

let shuttingDown = false;
async function shutdown(why: string, code: number): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  log(`${why}: stopping what this run started`);
  for (const c of liveChildren) c.kill('SIGKILL');
  await activeTeardown?.().catch(() => undefined);
  process.exit(code);
}
process.once('SIGINT', () => void shutdown('interrupted', 130));
process.once('SIGTERM', () => void shutdown('terminated', 143));

main().then(
  (code) => {
    clearTimeout(watchdog);
    process.exit(code);
  },
  async (e) => {
    log(`failed: ${(e as Error).stack ?? e}`);
    await activeTeardown?.().catch(() => undefined);
    process.exit(1);
  },
);
