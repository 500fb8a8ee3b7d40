import { execFileSync, spawn } from 'child_process';
import { createInterface } from 'readline';

/**
 * Where the local stack's Cassandra spends its CPU during a bench phase: a Java Flight Recorder
 * recording of the node (`jcmd <pid> JFR.start`, the JDK's own sampling profiler, no agent to
 * install), read back with `jfr print` and cut to each phase's wall-clock window like the
 * gateway's `.cpuprofile`. Samples are put in a few buckets that say which kind of Cassandra work
 * an S3 request costs (reads, writes, their flushes and compactions, the native transport).
 *
 * JFR samples Java threads only: garbage collection, the JIT and the kernel's share (syscalls,
 * futex wake-ups between thread pools) are not in it. So the buckets are shares of the node's
 * sampled Java work, not of its whole CPU time.
 */

export interface JfrSample {
  wallMs: number;
  thread: string;
  /** Innermost first, as `jfr print` lists them: `package.Class.method(args) line: N`. */
  frames: string[];
}

export interface JfrSummary {
  samples: number;
  /** Bucket → share of the window's samples, in BUCKETS order (empty buckets left out). */
  buckets: { name: string; pct: number }[];
  /** The innermost frames most often sampled (method only, no arguments or line). */
  topFrames: { name: string; pct: number }[];
}

const RECORDING = 'ostore-bench';

/** Starts a recording of the JVM `pid` into `file` (written when stopped). */
export function startJfr(pid: number, file: string): void {
  const out = execFileSync('jcmd', [String(pid), 'JFR.start', `name=${RECORDING}`, 'settings=profile', `filename=${file}`], {
    encoding: 'utf8',
  });
  if (!/Started recording/.test(out)) throw new Error(`jcmd JFR.start on ${pid}: ${out.trim()}`);
}

/** Stops the recording started by startJfr, which writes its file. */
export function stopJfr(pid: number): void {
  execFileSync('jcmd', [String(pid), 'JFR.stop', `name=${RECORDING}`], { encoding: 'utf8' });
}

/** `org.apache.X.Class.method(A, B) line: 60` → `Class.method`. */
export function methodOf(frame: string): string {
  const name = frame.trim().replace(/\(.*$/, '');
  const parts = name.split('.');
  return parts.slice(-2).join('.');
}

const has = (s: JfrSample, needle: string) => s.frames.some((f) => f.includes(needle));
const threadIs = (s: JfrSample, ...prefixes: string[]) => prefixes.some((p) => s.thread.startsWith(p));

/**
 * The buckets, first match wins. A read's sstable and memtable work runs partly inside
 * `queryMemtableAndDisk` and partly later, while the local response is serialized
 * (`LocalDataResponse`), on the request's thread or on another pool worker
 * (`LocalReadRunnable`, without the statement's frames): all of it counts as the local read.
 */
export const BUCKETS: { name: string; test: (s: JfrSample) => boolean }[] = [
  { name: 'compaction', test: (s) => threadIs(s, 'CompactionExecutor') || has(s, '.compaction.CompactionTask.') },
  {
    name: 'memtable flush',
    test: (s) => threadIs(s, 'PerDiskMemtableFlushWriter', 'MemtableFlushWriter', 'MemtablePostFlush') || has(s, 'ColumnFamilyStore$Flush.'),
  },
  {
    name: 'read: local read (memtables, sstables, its response)',
    test: (s) =>
      has(s, 'SinglePartitionReadCommand.queryMemtableAndDisk') ||
      has(s, 'ReadResponse$LocalDataResponse') ||
      has(s, 'StorageProxy$LocalReadRunnable'),
  },
  { name: 'read: statement, coordinator, result set', test: (s) => has(s, 'SelectStatement.') },
  { name: 'write: memtable and commit log', test: (s) => has(s, '.db.Keyspace.apply') },
  { name: 'write: statement and coordinator', test: (s) => has(s, 'BatchStatement.') || has(s, 'ModificationStatement.') },
  {
    name: 'native transport (frames, dispatch, replies)',
    test: (s) => threadIs(s, 'epollEventLoopGroup', 'nioEventLoopGroup') || has(s, 'org.apache.cassandra.transport.'),
  },
  { name: 'thread pools (idle spinning, hand-offs)', test: (s) => has(s, 'SEPWorker.doWaitSpin') || has(s, 'SEPWorker.assign') },
  { name: 'other', test: () => true },
];

/** Shares of the samples in [fromWallMs, toWallMs] (all when omitted). */
export function summarizeJfr(samples: JfrSample[], fromWallMs = -Infinity, toWallMs = Infinity, top = 10): JfrSummary {
  const inWindow = samples.filter((s) => s.wallMs >= fromWallMs && s.wallMs <= toWallMs);
  const n = inWindow.length;
  const pct = (c: number) => (n ? (c * 100) / n : 0);
  const bucketCounts = new Map<string, number>();
  const frameCounts = new Map<string, number>();
  for (const s of inWindow) {
    const b = BUCKETS.find((x) => x.test(s))!.name;
    bucketCounts.set(b, (bucketCounts.get(b) ?? 0) + 1);
    const leaf = s.frames[0] ? methodOf(s.frames[0]) : '(no frames)';
    frameCounts.set(leaf, (frameCounts.get(leaf) ?? 0) + 1);
  }
  return {
    samples: n,
    buckets: BUCKETS.filter((b) => bucketCounts.has(b.name)).map((b) => ({ name: b.name, pct: pct(bucketCounts.get(b.name)!) })),
    topFrames: [...frameCounts.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, c]) => ({ name, pct: pct(c) })),
  };
}

/**
 * Parses `jfr print --events jdk.ExecutionSample` text. `jfr print` writes each sample's time as
 * `HH:MM:SS.mmm` of the local time of day (the node runs on the bench's machine), so `day`
 * supplies the date: a recording that crosses midnight is not supported (phases last minutes).
 */
export function parseJfrText(lines: Iterable<string>, day: Date): JfrSample[] {
  const samples: JfrSample[] = [];
  let cur: JfrSample | undefined;
  let inStack = false;
  const base = new Date(day.getFullYear(), day.getMonth(), day.getDate()).getTime();
  for (const raw of lines) {
    const line = raw.trimEnd();
    if (line.startsWith('jdk.ExecutionSample {')) {
      cur = { wallMs: NaN, thread: '', frames: [] };
      inStack = false;
      continue;
    }
    if (!cur) continue;
    const t = line.match(/^\s*startTime = (\d\d):(\d\d):(\d\d)\.(\d{3})/);
    if (t) {
      cur.wallMs = base + ((Number(t[1]) * 60 + Number(t[2])) * 60 + Number(t[3])) * 1000 + Number(t[4]);
      continue;
    }
    const th = line.match(/^\s*sampledThread = "([^"]*)"/);
    if (th) {
      cur.thread = th[1]!;
      continue;
    }
    if (/^\s*stackTrace = \[/.test(line)) {
      inStack = true;
      continue;
    }
    if (inStack) {
      if (/^\s*\]/.test(line)) inStack = false;
      else if (line.trim() !== '...') cur.frames.push(line.trim());
      continue;
    }
    if (line === '}') {
      if (Number.isFinite(cur.wallMs)) samples.push(cur);
      cur = undefined;
    }
  }
  return samples;
}

/** The execution samples of a `.jfr` file (streams `jfr print`: a minute of recording is ~100 MB of text). */
export async function loadJfrSamples(file: string, day = new Date()): Promise<JfrSample[]> {
  const child = spawn('jfr', ['print', '--stack-depth', '200', '--events', 'jdk.ExecutionSample', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  const lines: string[] = [];
  const samples: JfrSample[] = [];
  const rl = createInterface({ input: child.stdout, crlfDelay: Infinity });
  for await (const line of rl) {
    lines.push(line);
    // Parse event by event so the text never has to be held whole.
    if (line === '}') samples.push(...parseJfrText(lines.splice(0), day));
  }
  const code = await exited;
  if (code !== 0) throw new Error(`jfr print ${file} exited ${code}: ${err.trim()}`);
  return samples;
}
