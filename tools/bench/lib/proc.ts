import { readFileSync } from 'fs';
import { cpus } from 'os';

/** Linux /proc readers: resident memory of a process and CPU time of a set of processes. */

/** `VmRSS` and `VmHWM` (peak RSS) of a process in bytes, from /proc/<pid>/status; undefined once it is gone. */
export function readRss(pid: number): { rss: number; hwm: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  return parseStatusMemory(text);
}

export function parseStatusMemory(status: string): { rss: number; hwm: number } | undefined {
  const kb = (name: string) => {
    const m = new RegExp(`^${name}:\\s*(\\d+)\\s*kB`, 'm').exec(status);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  const rss = kb('VmRSS');
  if (rss === undefined) return undefined;
  return { rss, hwm: kb('VmHWM') ?? rss };
}

export interface RssSample {
  /** ms since the sampler started */
  t: number;
  rss: number;
}

/**
 * Samples a process's VmRSS every `intervalMs` (200 ms by default) on a timer of its own.
 * `mark(label)` stamps the phase (e.g. upload/download) so the maximum can be told per phase.
 */
export class RssSampler {
  readonly samples: (RssSample & { phase: string })[] = [];
  private timer?: NodeJS.Timeout;
  private phase = 'start';
  private t0 = 0;

  constructor(
    readonly pid: number,
    readonly intervalMs = 200,
  ) {}

  start(): this {
    this.t0 = Date.now();
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    return this;
  }

  mark(phase: string): void {
    this.sample();
    this.phase = phase;
    this.sample();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.sample();
  }

  private sample(): void {
    const m = readRss(this.pid);
    if (m) this.samples.push({ t: Date.now() - this.t0, rss: m.rss, phase: this.phase });
  }

  /** Maximum sampled RSS, over all samples or those of one phase. */
  max(phase?: string): number {
    return this.samples.filter((s) => phase === undefined || s.phase === phase).reduce((m, s) => Math.max(m, s.rss), 0);
  }

  first(): number {
    return this.samples[0]?.rss ?? 0;
  }

  /**
   * Peak RSS over the process's whole life, start-up included: the kernel's VmHWM, or a sample
   * above it (the kernel folds its per-CPU RSS counters into VmHWM lazily, so VmRSS can briefly
   * read higher; seen under load in bench-lib.spec).
   */
  highWaterMark(): number | undefined {
    const hwm = readRss(this.pid)?.hwm;
    return hwm === undefined ? undefined : Math.max(hwm, this.max());
  }
}

/** utime + stime of a process in clock ticks (field 14 + 15 of /proc/<pid>/stat); undefined once gone. */
export function readCpuTicks(pid: number, withChildren = false): number | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return parseStatTicks(text, withChildren);
}

/**
 * utime + stime from a /proc/<pid>/stat line; with `withChildren` also cutime + cstime, the CPU
 * of children that have exited and been reaped (so a warp run counts once it has ended).
 */
export function parseStatTicks(stat: string, withChildren = false): number | undefined {
  // the command name (field 2) is in parentheses and may contain spaces: split after the last ')'
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state): utime (field 14) is rest[11], stime rest[12], cutime rest[13], cstime rest[14]
  const fields = withChildren ? [11, 12, 13, 14] : [11, 12];
  const values = fields.map((i) => Number(rest[i]));
  return values.every(Number.isFinite) ? values.reduce((a, b) => a + b, 0) : undefined;
}

/** Total CPU ticks of the machine (all cores, every state) from /proc/stat. */
export function readMachineTicks(): { total: number; idle: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  return { total: v.reduce((a, b) => a + b, 0), idle };
}

const TICKS_PER_SEC = 100; // USER_HZ on Linux

/**
 * CPU used by named processes over a window, as a percentage of one core (200 % = both cores
 * of this machine), plus the machine's busy percentage over the same window.
 */
export class CpuMeter {
  private startTicks = new Map<string, number>();
  private startMachine = readMachineTicks();
  private startMs = Date.now();

  /**
   * `pids`: name → pid. A name ending in `+children` also counts the process's reaped children
   * (the bench process with the warp runs it waited for).
   */
  constructor(private readonly pids: Record<string, number | undefined> = {}) {}

  start(): this {
    this.startMs = Date.now();
    this.startMachine = readMachineTicks();
    for (const [name, pid] of Object.entries(this.pids)) {
      const t = pid ? readCpuTicks(pid, name.endsWith('+children')) : undefined;
      if (t !== undefined) this.startTicks.set(name, t);
    }
    return this;
  }

  /** Percent of one core per process, and `machine` = busy % of all cores (100 % = all busy). */
  stop(): { seconds: number; perProcess: Record<string, number>; machineBusyPct: number } {
    const seconds = (Date.now() - this.startMs) / 1000;
    const perProcess: Record<string, number> = {};
    for (const [name, pid] of Object.entries(this.pids)) {
      const before = this.startTicks.get(name);
      const after = pid ? readCpuTicks(pid, name.endsWith('+children')) : undefined;
      if (before !== undefined && after !== undefined && seconds > 0) perProcess[name.replace(/\+children$/, '')] = ((after - before) / TICKS_PER_SEC / seconds) * 100;
    }
    const m = readMachineTicks();
    const total = m.total - this.startMachine.total;
    const idle = m.idle - this.startMachine.idle;
    const machineBusyPct = total > 0 ? ((total - idle) / total) * 100 : NaN;
    // everything else on the machine (other tests, the OS), in the same one-core units
    const ours = Object.values(perProcess).reduce((a, b) => a + b, 0);
    if (Number.isFinite(machineBusyPct)) perProcess['everything else'] = Math.max(0, (machineBusyPct / 100) * cpus().length * 100 - ours);
    return { seconds, perProcess, machineBusyPct };
  }
}
