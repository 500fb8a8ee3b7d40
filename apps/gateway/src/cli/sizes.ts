/** Byte sizes for people: `10 MiB` out, `10MiB` / `10MB` / `1G` / `1048576` in. */

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  t: 1e12,
  tb: 1e12,
  p: 1e15,
  pb: 1e15,
  ki: 2 ** 10,
  kib: 2 ** 10,
  mi: 2 ** 20,
  mib: 2 ** 20,
  gi: 2 ** 30,
  gib: 2 ** 30,
  ti: 2 ** 40,
  tib: 2 ** 40,
  pi: 2 ** 50,
  pib: 2 ** 50,
};

/**
 * Parses a size as `mc quota set --size` (go-humanize) does: decimal units for K/KB/M/MB/G/GB/T/TB
 * (1G = 10^9), binary ones for KiB/MiB/GiB/TiB (1GiB = 2^30), case-insensitive, a plain number
 * is bytes; fractions allowed when the result is a whole number of bytes.
 */
export function parseSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new Error(`"${text}" is not a size (examples: 1048576, 10MiB, 10MB, 1G)`);
  const bytes = Number(m[1]) * unit;
  if (!Number.isSafeInteger(bytes)) throw new Error(`"${text}" is not a whole number of bytes below 2^53`);
  return bytes;
}

const BINARY = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/** `0 B`, `512 B`, `10 MiB`, `1.5 GiB` (binary units, at most one decimal). */
export function formatBytes(bytes: number): string {
  let value = Math.abs(bytes);
  let i = 0;
  while (value >= 1024 && i < BINARY.length - 1) {
    value /= 1024;
    i++;
  }
  const shown = i === 0 || Number.isInteger(value) ? String(value) : value.toFixed(1).replace(/\.0$/, '');
  return `${bytes < 0 ? '-' : ''}${shown} ${BINARY[i]}`;
}
