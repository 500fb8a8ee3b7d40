/** The measured phases the scenarios are made of: warp PUT/GET, the aws-sdk PUT-then-GET, the warm-up. */
import { join } from 'path';
import { diffCounts, diffOps, KeyspaceCounts, s3RequestsByOperation } from '../lib/cassandra-stats';
import { CpuMeter } from '../lib/proc';
import { CpuSplit, Measurement, ScenarioResult } from '../lib/report';
import { LoopResult, sdkClient, sdkPutGet } from '../lib/sdk-load';
import { sizeLabel } from '../lib/units';
import { runWarp, WarpResult } from '../lib/warp';
import { Bench, log, REGION, Target, wallToMonoUs, WORK_DIR } from './bench';

/** Cassandra and S3 request counts at the start of a phase. */
export type Counters = { cass?: KeyspaceCounts; ops?: Record<string, number> };

/** Cassandra and S3 request counts around one phase (best effort: a failing probe only loses the table). */
export async function countersBefore(t: Target): Promise<Counters> {
  const cass = await t.cassandra
    ?.snapshot()
    .catch((e) => void log(`cassandra stats: ${(e as Error).message}`));
  const ops = t.metrics ? s3RequestsByOperation(await t.metrics()) : undefined;
  return { cass: cass ?? undefined, ops };
}

/** Adds the Cassandra requests per S3 request of `phase` since `before` to the scenario. */
export async function countersAfter(
  t: Target,
  s: ScenarioResult,
  phase: string,
  before: Counters,
): Promise<void> {
  if (!before.cass || !before.ops || !t.cassandra || !t.metrics) return;
  try {
    const cass = diffCounts(before.cass, await t.cassandra.snapshot());
    const ops = diffOps(before.ops, s3RequestsByOperation(await t.metrics()));
    const tables = [...cass.entries()]
      .map(([table, d]) => ({ table, ...d }))
      .sort((a, b) => b.reads + b.writes + b.scans - (a.reads + a.writes + a.scans));
    (s.cassandra ??= []).push({ phase, s3Requests: ops, tables });
  } catch (e) {
    log(`cassandra stats: ${(e as Error).message}`);
  }
}

/** One warp phase (PUT, or GET after warp's unmeasured upload); undefined when warp gave no report. */
export async function warpPhase(
  bench: Bench,
  t: Target,
  s: ScenarioResult,
  o: {
    op: 'put' | 'get';
    bucket: string;
    size: number;
    concurrent: number;
    durationMs: number;
    objects?: number;
  },
): Promise<Measurement | undefined> {
  const cpu = new CpuMeter({ ...t.pids });
  let split: ReturnType<CpuMeter['stop']> | undefined;
  const phase = `${o.op.toUpperCase()} ${sizeLabel(o.size)} warp`;
  log(
    `${s.name}: warp ${o.op} ${sizeLabel(o.size)} × ${o.concurrent} for ${o.durationMs / 1000}s${o.op === 'get' ? ` (after uploading ${o.objects} objects)` : ''}`,
  );
  const counters = await countersBefore(t);
  const r: WarpResult = await runWarp(
    bench.warpBin!,
    { host: t.host, accessKey: t.accessKey, secretKey: t.secretKey, region: REGION },
    {
      op: o.op,
      bucket: o.bucket,
      objectSize: sizeLabel(o.size),
      concurrent: o.concurrent,
      durationSec: Math.max(1, Math.round(o.durationMs / 1000)),
      objects: o.objects,
      disableMultipart: true,
      unsignedPayload: bench.args.unsignedPayload,
      benchdata: join(WORK_DIR, bench.runStamp, `${s.name}-${o.op}`),
    },
    { onStart: () => cpu.start(), onEnd: () => (split = cpu.stop()) },
  );
  await countersAfter(
    t,
    s,
    `${phase}${o.op === 'get' ? ' (incl. its upload of the objects first)' : ''}`,
    counters,
  );
  s.raw.push({ label: `${r.command.join(' ')}  (exit ${r.exitCode})`, text: r.output });
  if (split)
    s.cpu.push({
      phase: `${phase}${o.op === 'get' ? ' (incl. its upload of the objects first)' : ''}`,
      seconds: split.seconds,
      machineBusyPct: split.machineBusyPct,
      perProcess: split.perProcess,
    });
  if (r.totals?.startTime && r.totals.endTime) {
    bench.windows.push({
      scenario: s.name,
      phase,
      fromUs: wallToMonoUs(Date.parse(r.totals.startTime)),
      toUs: wallToMonoUs(Date.parse(r.totals.endTime)),
    });
  } else {
    bench.windows.push({
      scenario: s.name,
      phase,
      fromUs: wallToMonoUs(r.startedAt),
      toUs: wallToMonoUs(r.endedAt),
    });
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
  log(
    `${s.name}: ${m.op} ${m.objPerSec.toFixed(1)} obj/s, ${m.mibPerSec.toFixed(1)} MiB/s, p99 ${m.latencyMs?.p99 ?? '?'} ms, errors ${m.errors}`,
  );
  return m;
}

/** The unmeasured warm-up of `small` (see BenchArgs.warmupMs): half PUT, half GET, results dropped. */
export async function warmup(bench: Bench, t: Target, s: ScenarioResult): Promise<void> {
  const a = bench.args;
  const half = Math.max(1, Math.round(a.warmupMs / 2000));
  log(
    `${s.name}: warm-up, warp put then get ${sizeLabel(a.smallSize)} × ${a.smallConcurrency}, ${half}s each (not measured)`,
  );
  for (const op of ['put', 'get'] as const) {
    const r = await runWarp(
      bench.warpBin!,
      { host: t.host, accessKey: t.accessKey, secretKey: t.secretKey, region: REGION },
      {
        op,
        bucket: bench.bucket(`small-warmup-${op}`),
        objectSize: sizeLabel(a.smallSize),
        concurrent: a.smallConcurrency,
        durationSec: half,
        objects: op === 'get' ? 500 : undefined,
        disableMultipart: true,
        unsignedPayload: a.unsignedPayload,
        benchdata: join(WORK_DIR, bench.runStamp, `${s.name}-warmup-${op}`),
      },
      {},
    );
    if (r.exitCode !== 0) log(`${s.name}: warm-up ${op} exited ${r.exitCode} (ignored)`);
  }
  s.notes.push(
    `Before the measured phases, ${half * 2} s of warp PUT then GET on scratch buckets warmed up the JVMs (not measured; \`--warmup 0\` skips it).`,
  );
}

/** The aws-sdk load generator: a PUT phase then a GET phase of the same objects. */
export async function sdkPhases(
  bench: Bench,
  t: Target,
  s: ScenarioResult,
  o: { bucket: string; size: number; concurrency: number; durationMs: number },
): Promise<Measurement[]> {
  const client = sdkClient(
    { endpoint: t.endpoint, region: REGION, accessKeyId: t.accessKey, secretAccessKey: t.secretKey },
    o.concurrency,
  );
  const pids = t.pids;
  let cpu = new CpuMeter(pids);
  const splits: CpuSplit[] = [];
  const label = (op: string) => `${op} ${sizeLabel(o.size)} aws-sdk`;
  log(
    `${s.name}: aws-sdk PUT then GET ${sizeLabel(o.size)} × ${o.concurrency}, ${o.durationMs / 1000}s each`,
  );
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
        splits.push({
          phase: label('PUT'),
          seconds: r.seconds,
          machineBusyPct: r.machineBusyPct,
          perProcess: r.perProcess,
        });
        await countersAfter(t, s, label('PUT'), counters);
        counters = await countersBefore(t);
      }
      phase = p;
      cpu = new CpuMeter(pids).start();
    },
  }).finally(() => client.destroy());
  const r = cpu.stop();
  if (phase === 'get') {
    splits.push({
      phase: label('GET'),
      seconds: r.seconds,
      machineBusyPct: r.machineBusyPct,
      perProcess: r.perProcess,
    });
    await countersAfter(t, s, label('GET'), counters);
  }
  s.cpu.push(...splits);
  const toM = (l: LoopResult, op: 'PUT' | 'GET'): Measurement => {
    bench.windows.push({ scenario: s.name, phase: label(op), fromUs: l.monoStartUs, toUs: l.monoEndUs });
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
  for (const m of ms)
    log(
      `${s.name}: ${m.op} (aws-sdk) ${m.objPerSec.toFixed(1)} obj/s, ${m.mibPerSec.toFixed(1)} MiB/s, p99 ${m.latencyMs?.p99.toFixed(1)} ms, errors ${m.errors}`,
    );
  s.raw.push({ label: `aws-sdk load generator (${s.name})`, text: JSON.stringify({ put, get }, null, 2) });
  return ms;
}

/**
 * The PUT and GET phases of `small` or `large`: warp's (when warp runs), then the aws-sdk's (when
 * it runs), each in fresh buckets `<name>-put`, `<name>-get`, `<name>-sdk`.
 */
export async function putGetPhases(
  bench: Bench,
  t: Target,
  s: ScenarioResult,
  o: { name: string; size: number; concurrency: number; durationMs: number; objects: number },
): Promise<Measurement[]> {
  const ms: Measurement[] = [];
  const phase = { size: o.size, concurrent: o.concurrency, durationMs: o.durationMs };
  if (bench.useWarp()) {
    const put = await warpPhase(bench, t, s, { op: 'put', bucket: bench.bucket(`${o.name}-put`), ...phase });
    if (put) ms.push(put);
    const get = await warpPhase(bench, t, s, {
      op: 'get',
      bucket: bench.bucket(`${o.name}-get`),
      ...phase,
      objects: o.objects,
    });
    if (get) ms.push(get);
  }
  if (bench.useSdk()) {
    const sdk = {
      bucket: bench.bucket(`${o.name}-sdk`),
      size: o.size,
      concurrency: o.concurrency,
      durationMs: o.durationMs,
    };
    ms.push(...(await sdkPhases(bench, t, s, sdk)));
  }
  return ms;
}

/** Ends a timed transfer of `memory`: its CPU split, Cassandra counters and profile window. */
export async function endTransfer(
  bench: Bench,
  t: Target,
  s: ScenarioResult,
  phase: string,
  o: { cpu: CpuMeter; counters: Counters; window: { monoStartUs: number; monoEndUs: number } },
): Promise<void> {
  const c = o.cpu.stop();
  await countersAfter(t, s, phase, o.counters);
  s.cpu.push({ phase, seconds: c.seconds, machineBusyPct: c.machineBusyPct, perProcess: c.perProcess });
  bench.windows.push({ scenario: s.name, phase, fromUs: o.window.monoStartUs, toUs: o.window.monoEndUs });
}
