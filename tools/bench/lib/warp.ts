import { ChildProcess, spawn, spawnSync } from 'child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { homedir } from 'os';
import { join } from 'path';

/**
 * MinIO's warp (https://github.com/minio/warp, AGPL-3.0) as an external tool: built from the Go
 * module proxy into a cache outside the repo, never vendored or committed.
 *
 * Pinned to v1.6.1, the newest tag on 2026-11-30. Its go.mod asks for two dependency versions that
 * the module proxy reachable here refuses (madmin-go/v4 v4.6.7 and a minio-go/v7 pseudo-version),
 * so when a plain `go install` fails, the module source of v1.6.1 is taken from the proxy
 * (`go mod download`), those two requirements are raised to served releases (madmin-go/v4
 * v4.10.0, minio-go/v7 v7.4.1), and it is built with `go build`. The build takes ~8 minutes on 2
 * cores the first time (the module cache makes later builds fast).
 */
export const WARP_VERSION = 'v1.6.1';
const WARP_MODULE = 'github.com/minio/warp';
const DEP_OVERRIDES = ['github.com/minio/madmin-go/v4@v4.10.0', 'github.com/minio/minio-go/v7@v7.4.1'];

export function cacheDir(): string {
  return process.env.OSTORE_BENCH_CACHE ?? join(homedir(), '.cache', 'ostore');
}

export function defaultWarpPath(): string {
  return join(cacheDir(), 'bin', 'warp');
}

/** The warp binary to use: $WARP_BIN, else the cache, else `warp` on PATH; undefined when none. */
export function findWarp(): string | undefined {
  const candidates = [process.env.WARP_BIN, defaultWarpPath()].filter((p): p is string => !!p);
  for (const p of candidates) if (existsSync(p)) return p;
  const which = spawnSync('sh', ['-c', 'command -v warp'], { encoding: 'utf8' });
  const onPath = which.stdout.trim();
  return which.status === 0 && onPath ? onPath : undefined;
}

/** Builds warp into the cache (see the file comment). Returns the binary's path. */
export function buildWarp(log: (msg: string) => void = (m) => process.stderr.write(`${m}\n`)): string {
  const go = process.env.GO ?? 'go';
  const bin = defaultWarpPath();
  mkdirSync(join(cacheDir(), 'bin'), { recursive: true });
  const run = (args: string[], cwd?: string, extraEnv: Record<string, string> = {}) => {
    log(`$ ${go} ${args.join(' ')}${cwd ? `   (in ${cwd})` : ''}`);
    const r = spawnSync(go, args, { cwd: cwd ?? cacheDir(), encoding: 'utf8', env: { ...process.env, ...extraEnv }, maxBuffer: 64 * 1024 * 1024 });
    if (r.error) throw r.error;
    return r;
  };

  const direct = run(['install', '-trimpath', `${WARP_MODULE}@${WARP_VERSION}`], undefined, { GOBIN: join(cacheDir(), 'bin') });
  if (direct.status === 0 && existsSync(bin)) return bin;
  log(`plain go install failed (${lastLine(direct.stderr)}); building ${WARP_VERSION} with ${DEP_OVERRIDES.join(', ')}`);

  const dl = run(['mod', 'download', '-json', `${WARP_MODULE}@${WARP_VERSION}`]);
  if (dl.status !== 0) throw new Error(`go mod download ${WARP_MODULE}@${WARP_VERSION} failed:\n${dl.stdout}${dl.stderr}`);
  const moduleDir = JSON.parse(dl.stdout).Dir as string;
  const src = join(cacheDir(), `warp-src-${WARP_VERSION}`);
  rmSync(src, { recursive: true, force: true });
  cpSync(moduleDir, src, { recursive: true });
  spawnSync('chmod', ['-R', 'u+w', src]);
  const steps: string[][] = [['mod', 'edit', ...DEP_OVERRIDES.map((d) => `-require=${d}`)], ['mod', 'tidy'], ['build', '-trimpath', '-o', bin, '.']];
  for (const step of steps) {
    const r = run(step, src);
    if (r.status !== 0) throw new Error(`go ${step.join(' ')} failed:\n${r.stdout}${r.stderr}`);
  }
  writeFileSync(join(cacheDir(), 'bin', 'warp.version'), `${WARP_VERSION} (+ ${DEP_OVERRIDES.join(', ')})\n`);
  return bin;
}

/** What the cache knows of the binary's version (warp built with `go build` reports "(dev)"). */
export function warpVersion(bin: string): string {
  const marker = join(cacheDir(), 'bin', 'warp.version');
  if (bin === defaultWarpPath() && existsSync(marker)) return readFileSync(marker, 'utf8').trim();
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return (r.stdout || r.stderr).trim();
}

function lastLine(s: string): string {
  return s.trim().split('\n').pop() ?? '';
}

export interface WarpTarget {
  host: string; // 127.0.0.1:<port>
  accessKey: string;
  secretKey: string;
  region: string;
}

export interface WarpRunOptions {
  /** mixed: GET/PUT at `getPercent` % GETs over `objects` uploaded first (no DELETE, no STAT). */
  op: 'put' | 'get' | 'mixed';
  getPercent?: number;
  bucket: string;
  objectSize: string; // warp syntax, e.g. 4KiB
  concurrent: number;
  durationSec: number;
  /** GET only: objects uploaded before the GET phase. */
  objects?: number;
  /** Single PUT per object (no multipart). */
  disableMultipart: boolean;
  /** UNSIGNED-PAYLOAD instead of streaming-signed (aws-chunked) bodies over plain HTTP. */
  unsignedPayload: boolean;
  /** Every object in the bucket's root (warp --noprefix) instead of one prefix per client thread. */
  noPrefix?: boolean;
  benchdata: string;
}

/** The pinned flags (see README): fixed duration, no autoterm, fixed sizes, path-style, one host. */
export function warpArgs(t: WarpTarget, o: WarpRunOptions): string[] {
  const args = [
    o.op,
    '--host', t.host,
    '--access-key', t.accessKey,
    '--secret-key', t.secretKey,
    '--region', t.region,
    '--lookup', 'path',
    '--bucket', o.bucket,
    '--obj.size', o.objectSize,
    '--concurrent', String(o.concurrent),
    '--duration', `${o.durationSec}s`,
    '--noclear',
    '--no-color',
    '--benchdata', o.benchdata,
  ];
  if (o.op !== 'put' && o.objects) args.push('--objects', String(o.objects));
  if (o.op === 'mixed') {
    const get = o.getPercent ?? 70;
    args.push('--get-distrib', String(get), '--put-distrib', String(100 - get), '--delete-distrib', '0', '--stat-distrib', '0');
  }
  if (o.disableMultipart) args.push('--disable-multipart');
  if (o.unsignedPayload) args.push('--disable-sha256-payload');
  if (o.noPrefix) args.push('--noprefix');
  return args;
}

/** The text report's numbers (`Report: PUT. Concurrency: 32. Ran: 28s` and its bullet lines). */
export interface WarpReport {
  op: string;
  concurrency: number;
  ranSec: number;
  mibPerSec: number;
  objPerSec: number;
  latencyMs?: { avg: number; p50: number; p90: number; p99: number; fastest: number; slowest: number };
  ttfbMs?: { avg: number; p50: number; p90: number; p99: number };
  errors: number;
}

export interface WarpResult {
  command: string[];
  exitCode: number | null;
  output: string;
  report?: WarpReport;
  /** From `warp analyze --json`: whole-run totals, including the first and last partial seconds. */
  totals?: { requests: number; objects: number; errors: number; bytes: number; firstErrors: string[]; startTime?: string; endTime?: string };
  startedAt: number;
  endedAt: number;
}

const DUR = String.raw`([\d.]+)\s*(ns|µs|us|ms|s|m)`;

/** `12.6ms` → 12.6; `1.2s` → 1200; `900µs` → 0.9. */
export function durationMs(value: string, unit: string): number {
  const v = Number(value);
  switch (unit) {
    case 'ns':
      return v / 1e6;
    case 'µs':
    case 'us':
      return v / 1e3;
    case 'ms':
      return v;
    case 's':
      return v * 1e3;
    case 'm':
      return v * 60e3;
    default:
      return NaN;
  }
}

function pick(line: string, label: string): number | undefined {
  const m = new RegExp(`${label.replace(/[%.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:?\\s*${DUR}`).exec(line);
  return m ? durationMs(m[1], m[2]) : undefined;
}

/** Parses warp's final text report; the first `Report:` block of the given operation wins. */
export function parseWarpReport(text: string, op: string): WarpReport | undefined {
  const clean = text.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, '\n');
  const lines = clean.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^\\s*Report: ${op.toUpperCase()}\\b`).test(l));
  if (start < 0) return undefined;
  const head = /Concurrency:\s*(\d+)\.\s*Ran:\s*(?:(\d+)m)?([\d.]+)?s?/.exec(lines[start]);
  const report: WarpReport = {
    op: op.toUpperCase(),
    concurrency: head ? Number(head[1]) : NaN,
    ranSec: head ? Number(head[2] ?? 0) * 60 + Number(head[3] ?? 0) : NaN,
    mibPerSec: NaN,
    objPerSec: NaN,
    errors: 0,
  };
  for (const line of lines.slice(start + 1)) {
    if (/^\s*Report:/.test(line) || /^\s*Throughput, split/.test(line)) break;
    const avg = /\*\s*Average:\s*([\d.]+)\s*(KiB|MiB|GiB|B)\/s,\s*([\d.]+)\s*obj\/s/.exec(line);
    if (avg) {
      const scale = { B: 1 / 1024 ** 2, KiB: 1 / 1024, MiB: 1, GiB: 1024 }[avg[2] as 'B' | 'KiB' | 'MiB' | 'GiB'];
      report.mibPerSec = Number(avg[1]) * scale;
      report.objPerSec = Number(avg[3]);
    }
    if (/\*\s*Reqs:/.test(line)) {
      report.latencyMs = {
        avg: pick(line, 'Avg') ?? NaN,
        p50: pick(line, '50%') ?? NaN,
        p90: pick(line, '90%') ?? NaN,
        p99: pick(line, '99%') ?? NaN,
        fastest: pick(line, 'Fastest') ?? NaN,
        slowest: pick(line, 'Slowest') ?? NaN,
      };
    }
    if (/\*\s*TTFB:/.test(line)) {
      report.ttfbMs = { avg: pick(line, 'Avg') ?? NaN, p50: pick(line, 'Median') ?? NaN, p90: pick(line, '90th') ?? NaN, p99: pick(line, '99th') ?? NaN };
    }
    const errs = /Errors:\s*(\d+)/.exec(line);
    if (errs) report.errors = Number(errs[1]);
  }
  return report;
}

/** Totals of one operation from `warp analyze --json` output. */
export function parseWarpJson(json: string, op: string): WarpResult['totals'] {
  const data = JSON.parse(json);
  const agg = data?.by_op_type?.[op.toUpperCase()] ?? data?.total;
  if (!agg) return undefined;
  return {
    requests: agg.total_requests ?? 0,
    objects: agg.total_objects ?? 0,
    errors: agg.total_errors ?? 0,
    bytes: agg.total_bytes ?? 0,
    firstErrors: agg.first_errors ?? [],
    startTime: agg.start_time,
    endTime: agg.end_time,
  };
}

/** Runs one warp benchmark to the end (killed after duration + `graceSec`), then its analysis. */
export async function runWarp(
  bin: string,
  target: WarpTarget,
  o: WarpRunOptions,
  hooks: { graceSec?: number; onStart?: () => void; onEnd?: () => void } = {},
): Promise<WarpResult> {
  const args = warpArgs(target, o);
  mkdirSync(join(o.benchdata, '..'), { recursive: true });
  const startedAt = Date.now();
  hooks.onStart?.();
  const { code, output } = await spawnCollect(bin, args, (o.durationSec + (hooks.graceSec ?? 600)) * 1000);
  hooks.onEnd?.();
  const endedAt = Date.now();
  const result: WarpResult = {
    command: [bin, ...args.map((a) => (a === target.secretKey ? '<secret>' : a))],
    exitCode: code,
    output,
    report: parseWarpReport(output, o.op),
    startedAt,
    endedAt,
  };
  const data = `${o.benchdata}.json.zst`;
  if (existsSync(data)) {
    const analyzed = await spawnCollect(bin, ['analyze', '--json', '--no-color', data], 120_000);
    try {
      result.totals = parseWarpJson(analyzed.output.slice(analyzed.output.indexOf('{')), o.op);
    } catch {
      // the text report is what counts; the totals are a cross-check
    }
  }
  return result;
}

/** Children of ours still running (so an interrupted bench can end exactly these). */
export const liveChildren = new Set<ChildProcess>();

/** Spawns a command with stdout+stderr collected; SIGKILL after `timeoutMs`. */
export function spawnCollect(cmd: string, args: string[], timeoutMs: number, env?: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
    liveChildren.add(child);
    child.once('exit', () => liveChildren.delete(child));
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stderr.on('data', (d: Buffer) => chunks.push(d));
    const timer = setTimeout(() => {
      chunks.push(Buffer.from(`\n[bench] killed after ${timeoutMs} ms\n`));
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: Buffer.concat(chunks).toString('utf8') });
    });
  });
}
