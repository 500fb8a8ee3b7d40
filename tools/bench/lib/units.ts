/** Sizes and durations as people type them: `4KiB`, `64MiB`, `2GiB`, `30s`, `2m`. */

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1000,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
};

/** `4KiB` → 4096. Plain numbers are bytes; `k`/`m`/`g` alone are binary like warp's. */
export function parseSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? SIZE_UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new Error(`not a size: ${JSON.stringify(text)} (e.g. 4096, 4KiB, 64MiB, 2GiB)`);
  const bytes = Math.round(Number(m[1]) * unit);
  if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new Error(`not a positive size: ${text}`);
  return bytes;
}

/** 4096 → `4KiB`; exact binary units when possible (warp accepts these), else bytes. */
export function sizeLabel(bytes: number): string {
  for (const [unit, n] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= n && bytes % n === 0) return `${bytes / n}${unit}`;
  }
  return `${bytes}B`;
}

/** Human size with one decimal: 1536 → `1.5 KiB`. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

/** `30s` / `2m` / `500ms` / `45` (seconds) → milliseconds. */
export function parseDuration(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  if (!m) throw new Error(`not a duration: ${JSON.stringify(text)} (e.g. 30s, 2m)`);
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's').toLowerCase() as 'ms' | 's' | 'm' | 'h'];
  const ms = Math.round(Number(m[1]) * factor);
  if (ms <= 0) throw new Error(`not a positive duration: ${text}`);
  return ms;
}

/** Milliseconds as warp's --duration wants them: whole seconds, `30s`. */
export function warpDuration(ms: number): string {
  return `${Math.max(1, Math.round(ms / 1000))}s`;
}

/** Value at quantile q (0..1) of an ascending-sorted array, nearest-rank. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}
