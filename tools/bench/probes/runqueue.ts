// Who waits for a core during a warp phase: run against a bench that is running (`npm run bench --
// small`, `large` or `vs-minio`), it waits for a warp process of the given operation (`get` by
// default), lets it run 3 s, then reads every thread's /proc/<pid>/task/<tid>/schedstat of the
// gateway (with its node:cluster workers, which run the same script), Cassandra, Kafka, MinIO and
// warp at the start and the end of a window (15 s by default) and prints, per process, the cores it
// ran and the thread-seconds per second its threads were runnable but waiting on a run queue, its
// context switches per second, and its busiest threads; plus the machine's idle cores (/proc/stat,
// idle + iowait).
//
//   node -r @swc-node/register tools/bench/probes/runqueue.ts [get|put|mixed] [window ms]
//
// Linux only (schedstat needs CONFIG_SCHED_INFO, present in distribution kernels). Threads that
// start or end inside the window count from their start or up to their last reading.
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { readMachineTicks } from '../lib/proc';

interface ThreadStat {
  run: number;
  wait: number;
  slices: number;
  name: string;
}

const op = process.argv[2] ?? 'get';
const windowMs = Number(process.argv[3] ?? 15_000);
if (!['get', 'put', 'mixed'].includes(op) || !(windowMs > 0))
  throw new Error('usage: runqueue.ts [get|put|mixed] [window ms]');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** The pids of the processes this probe names, by role. */
function roles(): Record<string, string[]> {
  const out: Record<string, string[]> = { gateway: [], cassandra: [], kafka: [], minio: [], warp: [] };
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    const argv = (read(`/proc/${pid}/cmdline`) ?? '').split('\0');
    const line = argv.join(' ');
    if (/(^|\/)warp$/.test(argv[0]) && argv[1] === op) out.warp.push(pid);
    else if (/CassandraDaemon/.test(line)) out.cassandra.push(pid);
    else if (/kafka\.Kafka/.test(line)) out.kafka.push(pid);
    else if (/(^|\/)minio$/.test(argv[0]) && argv[1] === 'server') out.minio.push(pid);
    else if (/apps\/gateway\/src\/main\.js/.test(line)) out.gateway.push(pid);
  }
  return out;
}

/** run ns, run-queue wait ns, timeslices and name of every thread of the given processes. */
function threads(pids: string[]): Map<string, ThreadStat> {
  const out = new Map<string, ThreadStat>();
  for (const pid of pids) {
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const s = read(`/proc/${pid}/task/${tid}/schedstat`);
      if (!s) continue;
      const [run, wait, slices] = s.trim().split(' ').map(Number);
      out.set(tid, { run, wait, slices, name: (read(`/proc/${pid}/task/${tid}/comm`) ?? '?').trim() });
    }
  }
  return out;
}

async function main(): Promise<void> {
  let r = roles();
  const deadline = Date.now() + 30 * 60_000;
  while (r.warp.length === 0) {
    if (Date.now() > deadline) throw new Error(`no warp ${op} process appeared within 30 minutes`);
    await sleep(200);
    r = roles();
  }
  await sleep(3000);
  r = roles();
  const before = Object.fromEntries(Object.entries(r).map(([k, pids]) => [k, threads(pids)]));
  const idle0 = readMachineTicks();
  const t0 = Date.now();
  await sleep(windowMs);
  const after = Object.fromEntries(Object.entries(r).map(([k, pids]) => [k, threads(pids)]));
  const idle1 = readMachineTicks();
  const sec = (Date.now() - t0) / 1000;
  const cores = cpus().length;
  console.log(
    `warp ${op}, ${sec.toFixed(1)} s window; machine idle ${(((idle1.idle - idle0.idle) / (idle1.total - idle0.total)) * cores).toFixed(2)} of ${cores} cores`,
  );
  for (const [role, now] of Object.entries(after)) {
    if (now.size === 0) continue;
    let run = 0;
    let wait = 0;
    let slices = 0;
    const rows: [string, ThreadStat][] = [];
    for (const [tid, b] of now) {
      const a = before[role].get(tid) ?? { run: 0, wait: 0, slices: 0, name: b.name };
      const t = {
        name: b.name,
        run: (b.run - a.run) / 1e9 / sec,
        wait: (b.wait - a.wait) / 1e9 / sec,
        slices: (b.slices - a.slices) / sec,
      };
      run += t.run;
      wait += t.wait;
      slices += t.slices;
      rows.push([tid, t]);
    }
    console.log(
      `${role}: ran ${run.toFixed(3)} cores, waited ${wait.toFixed(3)} thread-s/s for a core, ${slices.toFixed(0)} switches/s`,
    );
    rows.sort((x, y) => y[1].run + y[1].wait - (x[1].run + x[1].wait));
    for (const [tid, t] of rows.slice(0, 6))
      console.log(
        `  ${tid.padStart(7)} ${t.name.padEnd(16)} ran ${t.run.toFixed(3)}  waited ${t.wait.toFixed(3)}  switches/s ${t.slices.toFixed(0)}`,
      );
  }
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
