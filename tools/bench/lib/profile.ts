import { readFileSync } from 'fs';
import { REPO_ROOT } from './gateway';

/**
 * Summaries of a V8 `.cpuprofile` (node --cpu-prof) restricted to a time window, so one profile
 * of a whole bench run can be cut into its phases. The profile's timestamps and the bench's
 * `process.hrtime` are the same clock (CLOCK_MONOTONIC, microseconds in the profile).
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface HotSpot {
  name: string;
  where: string;
  ms: number;
  pct: number;
  /** The commonest chain of callers (nearest first, up to 4), for self-time entries. */
  via?: string;
}

export interface ProfileSummary {
  windowMs: number;
  sampledMs: number;
  /** Share of the window the gateway's main thread was not idle. */
  busyPct: number;
  selfByFunction: HotSpot[];
  selfByArea: HotSpot[];
  /** Inclusive time of the gateway's own functions (apps/ and libs/). */
  inclusiveOwnCode: HotSpot[];
}

export function loadProfile(path: string): CpuProfile {
  return JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
}

/** `file:///work/main/libs/x/src/y.ts` → `libs/x/src/y.ts`; node_modules paths keep the package. */
export function shortUrl(url: string): string {
  let u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('/node_modules/');
  if (nm >= 0) return u.slice(nm + 1);
  if (u.startsWith(REPO_ROOT + '/')) u = u.slice(REPO_ROOT.length + 1);
  return u;
}

/** The area a frame belongs to: a package, a repo project (apps/x, libs/a/b), node internals or V8. */
export function areaOf(frame: CallFrame): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native/V8 builtins)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0] === 'internal' ? url.slice(5).split('/').slice(0, 2).join('/') : url.slice(5)}`;
  const s = shortUrl(url);
  const nm = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(s);
  if (nm) return nm[1];
  const own = /^(apps\/[^/]+|libs\/[^/]+\/[^/]+)\//.exec(s);
  if (own) return own[1];
  return s;
}

function label(frame: CallFrame): { name: string; where: string } {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return { name, where: '' };
  return { name, where: `${shortUrl(frame.url)}:${frame.lineNumber + 1}` };
}

/**
 * Self time per function and per area, and inclusive time of the repo's own functions, over the
 * samples whose timestamps fall in [fromUs, toUs] (the whole profile when omitted).
 */
export function summarizeProfile(p: CpuProfile, fromUs = -Infinity, toUs = Infinity, top = 20): ProfileSummary {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const self = new Map<number, number>(); // node id → µs
  let t = p.startTime;
  let sampled = 0;
  let idle = 0;
  let first = Infinity;
  let last = -Infinity;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    if (t < fromUs || t > toUs) continue;
    // a sample stands for the time until the next one
    const dt = Math.max(0, Math.min((p.timeDeltas[i + 1] ?? 0) || 0, 100_000));
    first = Math.min(first, t);
    last = Math.max(last, t);
    const id = p.samples[i];
    self.set(id, (self.get(id) ?? 0) + dt);
    sampled += dt;
    if (byId.get(id)?.callFrame.functionName === '(idle)') idle += dt;
  }

  const fnSelf = new Map<string, { name: string; where: string; us: number; callers: Map<string, number> }>();
  const areaSelf = new Map<string, number>();
  const ownInclusive = new Map<string, { name: string; where: string; us: number }>();
  for (const [id, us] of self) {
    const node = byId.get(id)!;
    const l = label(node.callFrame);
    const key = `${l.name}@${l.where}`;
    const e = fnSelf.get(key) ?? { ...l, us: 0, callers: new Map<string, number>() };
    e.us += us;
    const chain: string[] = [];
    for (let cur = parent.get(id); cur !== undefined && chain.length < 4; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (f.functionName === '(root)') break;
      const fl = label(f);
      chain.push(fl.where ? `${fl.name} (${fl.where})` : fl.name);
    }
    const path = chain.join(' ← ');
    e.callers.set(path, (e.callers.get(path) ?? 0) + us);
    fnSelf.set(key, e);
    const area = areaOf(node.callFrame);
    areaSelf.set(area, (areaSelf.get(area) ?? 0) + us);
    // inclusive: every distinct own-code frame on this sample's stack
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      const s = f.url ? shortUrl(f.url) : '';
      if (!/^(apps|libs)\//.test(s)) continue;
      const fl = label(f);
      const k = `${fl.name}@${fl.where}`;
      if (seen.has(k)) continue;
      seen.add(k);
      const o = ownInclusive.get(k) ?? { ...fl, us: 0 };
      o.us += us;
      ownInclusive.set(k, o);
    }
  }
  const busy = sampled - idle;
  const toSpots = (entries: { name: string; where: string; us: number; callers?: Map<string, number> }[]) =>
    entries
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((e) => {
        const spot: HotSpot = { name: e.name, where: e.where, ms: e.us / 1000, pct: busy > 0 ? (e.us / busy) * 100 : 0 };
        const via = e.callers && [...e.callers.entries()].sort((a, b) => b[1] - a[1])[0];
        if (via && via[0]) spot.via = via[0];
        return spot;
      });
  const windowUs = Number.isFinite(first) ? last - first : 0;
  return {
    windowMs: windowUs / 1000,
    sampledMs: sampled / 1000,
    busyPct: sampled > 0 ? (busy / sampled) * 100 : 0,
    selfByFunction: toSpots([...fnSelf.values()].filter((e) => e.name !== '(idle)')),
    selfByArea: toSpots([...areaSelf.entries()].filter(([a]) => a !== '(idle)').map(([name, us]) => ({ name, where: '', us }))),
    inclusiveOwnCode: toSpots([...ownInclusive.values()]),
  };
}
