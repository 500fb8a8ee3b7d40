/**
 * The soak's arithmetic, pure: samples cut into the first and last windows after the warm-up,
 * their medians, a least-squares slope, and the checks against the stated bounds.
 */
import { median } from '../lib/median';

/** One 10-second sample of the soak (times in seconds since the paced phase began). */
export interface SoakSample {
  tSec: number;
  /** VmRSS of the gateway process, MiB. */
  rssMiB: number;
  /** Committed size of V8's young generation (prom-client's nodejs_heap_space_size_total_bytes{space="new"}), MiB. */
  newSpaceMiB: number;
  /** VmRSS less newSpaceMiB: what the RSS check bounds (see SoakBounds.rssGrowth), MiB. */
  rssLessNewMiB: number;
  /** RssAnon and RssFile of the gateway, and the resident part of its `[heap]` (brk malloc arena) mapping, MiB. */
  rssAnonMiB: number;
  rssFileMiB: number;
  brkMiB: number;
  /** V8 heap used / total and memory outside the heap (Buffers, ArrayBuffers), MiB, from prom-client's nodejs_heap_size_*_bytes and nodejs_external_memory_bytes. */
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  /** Series (sample lines) in the gateway's /metrics: grows without bound when a label takes a key or request id. */
  metricSeries: number;
  /** Entries of /proc/<pid>/fd that are sockets. */
  fdSockets: number;
  /** ESTABLISHED TCP connections whose local port is the gateway's S3 port. */
  tcpEstablished: number;
  /** The gateway's nodejs_eventloop_lag_p99_seconds over the window since the last scrape, ms. */
  lagP99Ms: number;
  lagMaxMs: number;
  lagMeanMs: number;
  /** Requests completed in the window (successes and errors). */
  requests: number;
  errors: number;
  requestsPerSec: number;
  /** Client-side p99 latency of the window, ms. */
  clientP99Ms: number;
  load1: number;
}

export type SeriesName = 'rssMiB' | 'newSpaceMiB' | 'rssLessNewMiB' | 'rssAnonMiB' | 'rssFileMiB' | 'brkMiB' | 'heapUsedMiB' | 'heapTotalMiB' | 'externalMiB' | 'metricSeries' | 'fdSockets' | 'tcpEstablished' | 'lagP99Ms' | 'requestsPerSec' | 'errors' | 'clientP99Ms' | 'load1';

/** The part of the run that is compared: after `warmupSec`, first and last `windowSec`. */
export interface Windows {
  warmupSec: number;
  windowSec: number;
  endSec: number;
}

/** Median of the first and the last window and the slope, for one series. */
export interface SeriesSummary {
  name: SeriesName;
  first: number;
  last: number;
  /** (last − first) / first, NaN when first is 0. */
  change: number;
  /** Least-squares slope over every sample after the warm-up, in the series' unit per 10 minutes. */
  slopePer10Min: number;
}

/**
 * The comparison windows of a run of `durationSec`: a 2-minute warm-up and 5-minute windows for
 * the full soak; shorter runs (debugging, `--minutes 2`) scale both down so that they still exist.
 */
export function windowsFor(durationSec: number, warmupSec = 120, windowSec = 300): Windows {
  const warmup = Math.min(warmupSec, durationSec / 4);
  const window = Math.min(windowSec, (durationSec - warmup) / 2);
  return { warmupSec: warmup, windowSec: window, endSec: durationSec };
}

/** Slope b of y = a + b·x by least squares; NaN for fewer than two distinct x. */
export function leastSquaresSlope(points: { x: number; y: number }[]): number {
  const ps = points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const n = ps.length;
  if (n < 2) return NaN;
  const mx = ps.reduce((s, p) => s + p.x, 0) / n;
  const my = ps.reduce((s, p) => s + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const p of ps) {
    sxy += (p.x - mx) * (p.y - my);
    sxx += (p.x - mx) ** 2;
  }
  return sxx === 0 ? NaN : sxy / sxx;
}

/** Samples in the first window after the warm-up. */
export function firstWindow(samples: SoakSample[], w: Windows): SoakSample[] {
  return samples.filter((s) => s.tSec > w.warmupSec && s.tSec <= w.warmupSec + w.windowSec);
}

/** Samples in the last window of the run. */
export function lastWindow(samples: SoakSample[], w: Windows): SoakSample[] {
  return samples.filter((s) => s.tSec > w.endSec - w.windowSec);
}

/** First-window median, last-window median, their change and the slope per 10 minutes. */
export function summarizeSeries(samples: SoakSample[], name: SeriesName, w: Windows): SeriesSummary {
  const first = median(firstWindow(samples, w).map((s) => s[name]));
  const last = median(lastWindow(samples, w).map((s) => s[name]));
  const after = samples.filter((s) => s.tSec > w.warmupSec);
  const perSec = leastSquaresSlope(after.map((s) => ({ x: s.tSec, y: s[name] })));
  return { name, first, last, change: first === 0 ? NaN : (last - first) / first, slopePer10Min: perSec * 600 };
}

/** The bounds a soak must stay within (stated in its record). */
export interface SoakBounds {
  /**
   * Last-window median of RSS less V8's young generation at most (1 + this) × the first-window
   * median. The young generation is left out because V8 grows it by doubling, as survivors
   * accumulate, from its start size to its cap (2 × --max-semi-space-size: 32 MiB on 64-bit Node
   * 20), at a speed set by the request rate: a bounded settling that made the 2026-12-02 soaks'
   * RSS grow by up to 24 MiB (tools/bench/results/2026-12-02-soak-3.md). `maxNewSpaceMiB` bounds it.
   */
  rssGrowth: number;
  /** V8's young generation (committed) at most this in every sample after the warm-up, MiB. */
  maxNewSpaceMiB: number;
  /** Last-window median V8 heap used at most (1 + this) × the first-window median: a leak of JS objects shows here first. */
  heapGrowth: number;
  /** Last-window median socket counts at most first + max(socketSlack, socketGrowth × first). */
  socketGrowth: number;
  socketSlack: number;
  /** The p99 event-loop lag of the last window (the largest of its windows' p99) at most this, ms. */
  lagP99Ms: number;
  /** Flat lag: the last window's median p99 at most first × lagFlatFactor + lagFlatSlackMs. */
  lagFlatFactor: number;
  lagFlatSlackMs: number;
  /** Achieved request rate at least this share of the target rate. */
  minRateShare: number;
}

export const DEFAULT_BOUNDS: SoakBounds = { rssGrowth: 0.2, maxNewSpaceMiB: 32, heapGrowth: 0.2, socketGrowth: 0.2, socketSlack: 4, lagP99Ms: 1000, lagFlatFactor: 1.5, lagFlatSlackMs: 20, minRateShare: 0.9 };

/** One check of the record: what, the bound, the measured value, pass. */
export interface SoakCheck {
  what: string;
  bound: string;
  measured: string;
  pass: boolean;
}

const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : String(n));

/** A series in MiB whose last-window median may be at most (1 + growth) × its first-window median. */
function growthCheck(samples: SoakSample[], w: Windows, name: SeriesName, growth: number, what: string, more = ''): SoakCheck {
  const s = summarizeSeries(samples, name, w);
  return {
    what,
    bound: `≤ +${fmt(growth * 100, 0)} %`,
    measured: `${fmt(s.first)} → ${fmt(s.last)} MiB (${fmt(s.change * 100)} %${more})`,
    pass: Number.isFinite(s.last) && s.last <= s.first * (1 + growth),
  };
}

/** Every check of a finished soak; the run fails when one does not pass. */
export function soakChecks(
  samples: SoakSample[],
  w: Windows,
  b: SoakBounds,
  run: { errors: number; maxPhaseErrors: number; targetRate: number; achievedRate: number },
): SoakCheck[] {
  const checks: SoakCheck[] = [];
  const totalErrors = run.errors + run.maxPhaseErrors;
  checks.push({ what: 'errors (non-2xx, client exceptions, wrong bodies; both phases)', bound: '0', measured: `${totalErrors} (max phase ${run.maxPhaseErrors}, soak ${run.errors})`, pass: totalErrors === 0 });
  const raw = summarizeSeries(samples, 'rssMiB', w);
  checks.push(growthCheck(samples, w, 'rssLessNewMiB', b.rssGrowth, 'gateway RSS less the V8 young generation, last-window median vs first-window median after the warm-up', `; RSS itself ${fmt(raw.first)} → ${fmt(raw.last)} MiB, ${fmt(raw.change * 100)} %`));
  const young = Math.max(...samples.filter((s) => s.tSec > w.warmupSec).map((s) => s.newSpaceMiB));
  checks.push({
    what: 'V8 young generation (committed), the largest sample after the warm-up',
    bound: `≤ ${b.maxNewSpaceMiB} MiB`,
    measured: `${fmt(young)} MiB`,
    pass: Number.isFinite(young) && young <= b.maxNewSpaceMiB,
  });
  checks.push(growthCheck(samples, w, 'heapUsedMiB', b.heapGrowth, 'gateway V8 heap used (prom-client nodejs_heap_size_used_bytes), last-window median vs first-window median'));
  for (const name of ['fdSockets', 'tcpEstablished'] as const) {
    const s = summarizeSeries(samples, name, w);
    const limit = s.first + Math.max(b.socketSlack, b.socketGrowth * s.first);
    checks.push({
      what: name === 'fdSockets' ? 'gateway socket descriptors (/proc/<pid>/fd), last vs first window median' : 'ESTABLISHED TCP to the S3 port, last vs first window median',
      bound: `≤ first + max(${b.socketSlack}, ${fmt(b.socketGrowth * 100, 0)} %) = ${fmt(limit)}`,
      measured: `${fmt(s.first)} → ${fmt(s.last)}`,
      pass: Number.isFinite(s.last) && s.last <= limit,
    });
  }
  const lastLag = Math.max(...lastWindow(samples, w).map((s) => s.lagP99Ms));
  checks.push({
    what: "event-loop lag p99 of the last window (the largest 10 s window's p99 there: an upper bound of the window's p99)",
    bound: `≤ ${b.lagP99Ms} ms`,
    measured: `${fmt(lastLag)} ms`,
    pass: Number.isFinite(lastLag) && lastLag <= b.lagP99Ms,
  });
  const lag = summarizeSeries(samples, 'lagP99Ms', w);
  const lagLimit = lag.first * b.lagFlatFactor + b.lagFlatSlackMs;
  checks.push({
    what: 'event-loop lag p99 flat: the median of the 10 s windows, last window vs first',
    bound: `≤ first × ${b.lagFlatFactor} + ${b.lagFlatSlackMs} ms = ${fmt(lagLimit)} ms`,
    measured: `${fmt(lag.first)} → ${fmt(lag.last)} ms`,
    pass: Number.isFinite(lag.last) && lag.last <= lagLimit,
  });
  checks.push({
    what: 'request rate achieved over the soak vs the target (half the measured maximum)',
    bound: `≥ ${fmt(b.minRateShare * 100, 0)} % of ${fmt(run.targetRate)}/s`,
    measured: `${fmt(run.achievedRate)}/s (${fmt((run.achievedRate / run.targetRate) * 100)} %)`,
    pass: run.achievedRate >= run.targetRate * b.minRateShare,
  });
  return checks;
}
