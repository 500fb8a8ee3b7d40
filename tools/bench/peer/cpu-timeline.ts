import { readFileSync } from 'fs';
import { readCpuTicks } from '../lib/proc';

const TICKS_PER_SEC = 100; // USER_HZ on Linux

/** The pids of a process and of all its live descendants (gateway workers of node:cluster), but not `skip`'s subtrees. */
export function processTree(pid: number, skip: ReadonlySet<number> = new Set()): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      const children = readFileSync(`/proc/${out[i]}/task/${out[i]}/children`, 'utf8').trim();
      if (children) out.push(...children.split(/\s+/).map(Number).filter((c) => !skip.has(c)));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * CPU seconds of named processes sampled every `intervalMs` (each name counts its whole process
 * tree, live and reaped: gateway workers, the warp runs of the bench process), so that the CPU of
 * any time window can be cut afterwards, e.g. warp's measured phase without its upload before it.
 */
export class CpuTimeline {
  private readonly samples: { atMs: number; cpuSec: Record<string, number> }[] = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly pids: Record<string, number | undefined>,
    private readonly intervalMs = 250,
  ) {}

  private sample(): void {
    const cpuSec: Record<string, number> = {};
    for (const [name, pid] of Object.entries(this.pids)) {
      if (!pid) continue;
      // the root with its reaped children, plus every live descendant: a child's CPU moves from the
      // second to the first when it exits, so the sum never jumps
      // (a process tree within another one, e.g. the gateway a bench process started, is not counted twice)
      const others = new Set(Object.values(this.pids).filter((p): p is number => !!p && p !== pid));
      const [root, ...live] = processTree(pid, others);
      let ticks = readCpuTicks(root, true) ?? 0;
      for (const p of live) ticks += readCpuTicks(p, false) ?? 0;
      cpuSec[name.replace(/\+children$/, '')] = ticks / TICKS_PER_SEC;
    }
    this.samples.push({ atMs: Date.now(), cpuSec });
  }

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.sample();
  }

  /** CPU seconds per process between two wall-clock times (nearest samples inside the window). */
  between(fromMs: number, toMs: number): Record<string, number> {
    const inside = this.samples.filter((s) => s.atMs >= fromMs - this.intervalMs / 2 && s.atMs <= toMs + this.intervalMs / 2);
    if (inside.length < 2) return {};
    const a = inside[0].cpuSec;
    const b = inside[inside.length - 1].cpuSec;
    const scale = (toMs - fromMs) / Math.max(1, inside[inside.length - 1].atMs - inside[0].atMs);
    const out: Record<string, number> = {};
    for (const name of Object.keys(b)) if (a[name] !== undefined) out[name] = (b[name] - a[name]) * scale;
    return out;
  }
}
