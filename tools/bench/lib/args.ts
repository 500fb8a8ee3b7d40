import { parseDuration, parseSize } from './units';

export const COMMANDS = ['small', 'large', 'memory', 'all', 'check', 'build-warp', 'selftest', 'profile-summary', 'report', 'help'] as const;
export type Command = (typeof COMMANDS)[number];
export type Scenario = 'small' | 'large' | 'memory';

export interface BenchArgs {
  command: Command;
  /** Seconds of each timed phase (PUT, GET) of `small`. */
  smallDurationMs: number;
  /**
   * Unmeasured warp PUT then GET of small objects before `small` (0: none): a freshly started
   * Cassandra (and gateway) JVM is still compiling its hot paths and costs up to 3× the CPU per request.
   */
  warmupMs: number;
  smallSize: number;
  smallConcurrency: number;
  /** GET phase: objects warp uploads first (its --objects). */
  smallObjects: number;
  largeDurationMs: number;
  largeSize: number;
  largeConcurrency: number;
  largeObjects: number;
  memorySize: number;
  memoryMode: 'auto' | 'multipart' | 'single';
  partSize: number;
  queueSize: number;
  rssIntervalMs: number;
  client: 'warp' | 'sdk' | 'both';
  /** warp: UNSIGNED-PAYLOAD (--disable-sha256-payload) instead of aws-chunked streaming signatures. */
  unsignedPayload: boolean;
  blockStore: 'fs' | 'cassandra';
  /** dist: the compiled build (`npm run build`, as production runs); register: TypeScript through @swc-node/register (as `npm start`). */
  runtime: 'dist' | 'register';
  profile: boolean;
  /** `--cassandra-profile`: a JFR recording of the stack's Cassandra node, summarized per phase. */
  cassandraProfile: boolean;
  keep: boolean;
  /** Use a running gateway instead of starting one. */
  endpoint?: string;
  accessKey?: string;
  secretKey?: string;
  gatewayPid?: number;
  keyspace?: string;
  /** Results folder (default tools/bench/results). */
  out?: string;
  /** Extra environment of the gateway process (`--gateway-env K=V`, repeatable): experiments. */
  gatewayEnv: Record<string, string>;
  /** `profile-summary`: the .cpuprofile file to summarize. */
  file?: string;
  /** `report`: the day to re-render (default today). */
  date?: string;
  dryRun: boolean;
}

export const USAGE = `usage: npm run bench -- <command> [options]

commands
  small        4 KiB objects, 32 clients: PUT phase, then GET phase (warp put / warp get)
  large        64 MiB objects, 4 clients: PUT phase, then GET phase (MiB/s each way)
  memory       one 2 GiB object streamed up (lib-storage) and down (GetObject) while the
               gateway's RSS is sampled from /proc/<pid>/status
  all          small, large, memory in one gateway
  check        start the gateway and try CreateBucket/PutObject/GetObject once (is it ready?)
  build-warp   build MinIO warp into ~/.cache/ostore/bin (Go module proxy; ~8 min the first time)
  selftest     run every scenario briefly against an in-memory fake S3 (checks the tooling)
  profile-summary --file X.cpuprofile   top self-time functions of a CPU profile
  report [--date YYYY-MM-DD]   rewrite the day's Markdown from its JSON (after editing the
               hand-written <date>-gateway.analysis.md)

lifecycle benches (their own options; each file's header comment lists them)
  lifecycle-scan [--versions 200000 ...]      versions/s of one scanner's local scan
  lifecycle-apply [--objects 10000 ...]       lifecycle deletions/s of one scheduler
  lifecycle-wide-directory [--objects 200000 ...]   one directory, 90 % expired, listed before and after
               (the same as node tools/bench/lifecycle/{scan,apply,wide-directory}.mjs)

options (defaults in brackets)
  --duration 30s             each timed phase of small and large [30s]
  --small-duration / --large-duration   one scenario's phases only
  --warmup 60s               unmeasured warp PUT + GET before small (JIT warm-up; 0 = none) [60s]
  --concurrency 32           small clients [32]      --large-concurrency 4   [4]
  --size 4KiB                small object size        --large-size 64MiB
  --objects 2500             objects warp uploads before small GET [2500]
  --large-objects 8          objects warp uploads before large GET [2 × large concurrency]
  --memory-size 2GiB         object size of the memory test [2GiB]
  --memory-mode auto         multipart (lib-storage) | single (one PutObject) | auto [auto:
                             multipart, one PutObject when the gateway lacks multipart]
  --part-size 8MiB --queue-size 4   lib-storage parts in the memory test
  --rss-interval 200ms       RSS sampling period
  --client warp              warp | sdk | both  (small and large; sdk when warp is missing)
  --signed-payload           warp sends aws-chunked streaming-signed bodies (default: UNSIGNED-PAYLOAD)
  --block-store fs           fs | cassandra
  --runtime dist             dist: compiled JavaScript (built first, as production runs it) |
                             register: TypeScript through @swc-node/register (as npm start)
  --profile                  run the gateway under node --cpu-prof and add the hotspots per
                             phase (such a run is recorded apart from the measured numbers)
  --cassandra-profile        record the local stack's Cassandra node with Java Flight Recorder
                             (jcmd JFR.start) and add, per phase, which kind of Cassandra work
                             its sampled CPU went to (recorded apart, like --profile)
  --gateway-env NAME=value   extra gateway environment, repeatable (experiments, e.g.
                             UV_THREADPOOL_SIZE=16 or BLOCK_SIZE_BYTES=4194304); recorded
  --keep                     keep the keyspace and blocks afterwards
  --keyspace NAME            [bench_<yyyymmdd>_<hhmmss>]
  --endpoint http://127.0.0.1:9000 --access-key K --secret-key S [--gateway-pid PID]
                             measure a gateway that is already running (no start/stop)
  --out DIR                  results folder [tools/bench/results]
  --dry-run                  print what would run, start nothing
`;

/** Parses argv (after `run.ts`). Throws with a message naming the bad argument. */
export function parseArgs(argv: string[]): BenchArgs {
  const a: BenchArgs = {
    command: 'help',
    smallDurationMs: 30_000,
    warmupMs: 60_000,
    smallSize: 4 * 1024,
    smallConcurrency: 32,
    smallObjects: 2500,
    largeDurationMs: 30_000,
    largeSize: 64 * 1024 ** 2,
    largeConcurrency: 4,
    largeObjects: 0,
    memorySize: 2 * 1024 ** 3,
    memoryMode: 'auto',
    partSize: 8 * 1024 ** 2,
    queueSize: 4,
    rssIntervalMs: 200,
    client: 'warp',
    unsignedPayload: true,
    blockStore: 'fs',
    runtime: 'dist',
    profile: false,
    cassandraProfile: false,
    keep: false,
    dryRun: false,
    gatewayEnv: {},
  };
  let commandSeen = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      if (inline !== undefined) return inline;
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value`);
      return v;
    };
    const int = (min: number, max: number): number => {
      const raw = value();
      const n = Number(raw);
      if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${flag} must be an integer in ${min}..${max}, got ${raw}`);
      return n;
    };
    const oneOf = <T extends string>(options: readonly T[]): T => {
      const v = value();
      if (!options.includes(v as T)) throw new Error(`${flag} must be one of ${options.join(', ')}, got ${v}`);
      return v as T;
    };
    const wrap = <T>(fn: () => T): T => {
      try {
        return fn();
      } catch (e) {
        throw new Error(`${flag}: ${(e as Error).message}`);
      }
    };
    switch (flag) {
      case '-h':
      case '--help':
        a.command = 'help';
        return a;
      case '--duration': {
        const ms = wrap(() => parseDuration(value()));
        a.smallDurationMs = ms;
        a.largeDurationMs = ms;
        break;
      }
      case '--warmup': {
        const v = value();
        a.warmupMs = /^\s*0+(\.0*)?\s*(ms|s|m|h)?\s*$/i.test(v) ? 0 : wrap(() => parseDuration(v));
        break;
      }
      case '--small-duration':
        a.smallDurationMs = wrap(() => parseDuration(value()));
        break;
      case '--large-duration':
        a.largeDurationMs = wrap(() => parseDuration(value()));
        break;
      case '--concurrency':
        a.smallConcurrency = int(1, 1024);
        break;
      case '--large-concurrency':
        a.largeConcurrency = int(1, 256);
        break;
      case '--size':
        a.smallSize = wrap(() => parseSize(value()));
        break;
      case '--large-size':
        a.largeSize = wrap(() => parseSize(value()));
        break;
      case '--objects':
        a.smallObjects = int(1, 1_000_000);
        break;
      case '--large-objects':
        a.largeObjects = int(1, 10_000);
        break;
      case '--memory-size':
        a.memorySize = wrap(() => parseSize(value()));
        break;
      case '--memory-mode':
        a.memoryMode = oneOf(['auto', 'multipart', 'single'] as const);
        break;
      case '--part-size':
        a.partSize = wrap(() => parseSize(value()));
        if (a.partSize < 5 * 1024 ** 2) throw new Error('--part-size must be at least 5MiB (S3 minimum)');
        break;
      case '--queue-size':
        a.queueSize = int(1, 64);
        break;
      case '--rss-interval':
        a.rssIntervalMs = wrap(() => parseDuration(value()));
        break;
      case '--client':
        a.client = oneOf(['warp', 'sdk', 'both'] as const);
        break;
      case '--signed-payload':
        a.unsignedPayload = false;
        break;
      case '--block-store':
        a.blockStore = oneOf(['fs', 'cassandra'] as const);
        break;
      case '--runtime':
        a.runtime = oneOf(['dist', 'register'] as const);
        break;
      case '--profile':
        a.profile = true;
        break;
      case '--cassandra-profile':
        a.cassandraProfile = true;
        break;
      case '--keep':
        a.keep = true;
        break;
      case '--dry-run':
        a.dryRun = true;
        break;
      case '--keyspace': {
        const ks = value();
        if (!/^[a-z][a-z0-9_]{0,47}$/.test(ks)) throw new Error(`--keyspace must be a lowercase identifier of at most 48 characters, got ${ks}`);
        a.keyspace = ks;
        break;
      }
      case '--endpoint': {
        const ep = value();
        if (!/^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\]):\d+\/?$/.test(ep)) throw new Error(`--endpoint must be http://127.x.x.x:<port> (load goes to loopback only), got ${ep}`);
        a.endpoint = ep.replace(/\/$/, '');
        break;
      }
      case '--access-key':
        a.accessKey = value();
        break;
      case '--secret-key':
        a.secretKey = value();
        break;
      case '--gateway-pid':
        a.gatewayPid = int(1, 2 ** 22);
        break;
      case '--gateway-env': {
        const kv = value();
        const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(kv);
        if (!m) throw new Error(`--gateway-env takes NAME=value, got ${kv}`);
        a.gatewayEnv[m[1]] = m[2];
        break;
      }
      case '--out':
        a.out = value();
        break;
      case '--file':
        a.file = value();
        break;
      case '--date': {
        const d = value();
        if (!/^\d{4}-\d{2}-\d{2}$/.test(d)) throw new Error(`--date must be YYYY-MM-DD, got ${d}`);
        a.date = d;
        break;
      }
      default:
        if (flag.startsWith('-')) throw new Error(`unknown option ${flag} (see --help)`);
        if (commandSeen) throw new Error(`one command only: got ${a.command} and ${flag}`);
        if (!(COMMANDS as readonly string[]).includes(flag)) throw new Error(`unknown command ${flag}; one of ${COMMANDS.join(', ')}`);
        a.command = flag as Command;
        commandSeen = true;
    }
  }
  if (!a.largeObjects) a.largeObjects = Math.max(2, a.largeConcurrency * 2);
  if (a.endpoint && (!a.accessKey || !a.secretKey)) throw new Error('--endpoint needs --access-key and --secret-key');
  if (a.command === 'profile-summary' && !a.file) throw new Error('profile-summary needs --file <path.cpuprofile>');
  return a;
}

export function scenariosOf(command: Command): Scenario[] {
  if (command === 'all' || command === 'selftest') return ['small', 'large', 'memory'];
  if (command === 'small' || command === 'large' || command === 'memory') return [command];
  return [];
}

/**
 * A positive whole-number flag of a one-off bench script (`--name 12`), else `fallback`; anything
 * else is refused with a message that names the flag.
 */
export function positiveIntFlag(argv: string[], name: string, fallback: number): number {
  const i = argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} needs a positive whole number`);
  return v;
}

/** Removes a value-less `flag` from `argv`; whether it was there. */
export function takeFlag(argv: string[], flag: string): boolean {
  const i = argv.indexOf(flag);
  if (i >= 0) argv.splice(i, 1);
  return i >= 0;
}

/** Removes `flag` and its value from `argv` and returns the value (undefined when absent). */
export function takeOption(argv: string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  if (i < 0) return undefined;
  const v = argv[i + 1];
  if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value`);
  argv.splice(i, 2);
  return v;
}
