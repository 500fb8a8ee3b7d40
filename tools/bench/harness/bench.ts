/** The gateway bench's run state and the helpers every scenario shares. */
import { join } from 'path';
import { BenchArgs, Scenario } from '../lib/args';
import { CassandraStats } from '../lib/cassandra-stats';
import { gitCommit } from '../lib/machine';
import { Check, Measurement, ScenarioResult } from '../lib/report';

export const BENCH_DIR = join(__dirname, '..');
export const WORK_DIR = join(BENCH_DIR, '.work');
export const REGION = 'us-east-1';
export const MiB = 1024 ** 2;

/** One line on stderr, prefixed with the time. */
export function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

/** Today's date in local time, `YYYY-MM-DD`: the name of the day's results file. */
export function localDate(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

function stamp(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${localDate(d).replace(/-/g, '')}_${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

const monoUs = () => Number(process.hrtime.bigint() / 1000n);
/** Wall-clock ms → the monotonic µs clock of CPU profiles. */
export const wallToMonoUs = (wallMs: number) => monoUs() - (Date.now() - wallMs) * 1000;
/** The monotonic µs of a phase window → wall-clock ms (JFR samples carry wall-clock times). */
export const monoToWallMs = (us: number) => Date.now() - (monoUs() - us) / 1000;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a scenario runs against: endpoint, credentials, the processes whose CPU and RSS count. */
export interface Target {
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

/** The time window of one measured phase, to cut the CPU profile by. */
export interface PhaseWindow {
  scenario: string;
  phase: string;
  fromUs: number;
  toUs: number;
}

/** One run of the gateway bench: its arguments, its stamp, the phase windows measured so far. */
export class Bench {
  readonly runStamp = stamp();
  readonly bucketTag = this.runStamp.slice(9).replace(/_/g, '');
  readonly windows: PhaseWindow[] = [];
  warpBin?: string;
  readonly commandLine: string;

  constructor(
    readonly args: BenchArgs,
    argv: string[],
  ) {
    this.commandLine =
      process.env.npm_lifecycle_event === 'bench'
        ? `npm run bench -- ${argv.join(' ')}`
        : `node -r @swc-node/register tools/bench/run.ts ${argv.join(' ')}`;
  }

  /** What differs from the standard setup (kept apart in the results). */
  variant(): string {
    const a = this.args;
    const parts = [
      a.blockStore !== 'fs' ? `BLOCK_STORE=${a.blockStore}` : '',
      ...Object.entries(a.gatewayEnv).map(([k, v]) => `${k}=${v}`),
      a.unsignedPayload ? '' : 'signed payload',
    ];
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
      profiled: this.args.profile || this.args.cassandraProfile,
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

  commonNotes(): string[] {
    const n: string[] = [];
    if (this.useWarp()) {
      n.push(
        `warp flags pinned: --noclear, fixed --duration (no --autoterm), fixed --obj.size (no --obj.randsize), --disable-multipart, --lookup path, --region ${REGION}, plain HTTP to 127.0.0.1${this.args.unsignedPayload ? ', --disable-sha256-payload (UNSIGNED-PAYLOAD: no client-side SHA-256, no aws-chunked signing)' : ' (streaming-signed aws-chunked bodies)'}.`,
      );
    }
    if (this.useSdk())
      n.push(
        'aws-sdk: @aws-sdk/client-s3 with keep-alive sockets = concurrency, bodies as streams (UNSIGNED-PAYLOAD), flexible checksums off (WHEN_REQUIRED), maxAttempts 1.',
      );
    if (this.args.client !== 'sdk' && !this.warpBin)
      n.push('warp was not found (npm run bench -- build-warp), so the aws-sdk load generator ran instead.');
    return n;
  }
}

/** A phase with errors (or no requests at all) fails whatever its speed. */
export function errorCheck(m: Measurement): Check {
  return {
    what: `${m.op} errors (${m.client})`,
    target: '0',
    measured: String(m.errors),
    pass: m.errors === 0 && m.requests !== 0,
  };
}
