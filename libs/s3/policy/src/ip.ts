/** An IPv4 or IPv6 address as a big integer and its bit width, or undefined when it is not one. */
function parseIp(text: string): { value: bigint; bits: 32 | 128 } | undefined {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const parts = v4.slice(1).map(Number);
    if (parts.some((p) => p > 255)) return undefined;
    return { value: parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n), bits: 32 };
  }
  if (!text.includes(':')) return undefined;
  let head = text;
  let tailV4: bigint | undefined;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const embedded = parseIp(text.slice(lastColon + 1));
    if (!embedded || embedded.bits !== 32) return undefined;
    tailV4 = embedded.value;
    head = text.slice(0, lastColon + 1) + '0:0';
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const group = (s: string) => (s === '' ? [] : s.split(':'));
  const left = group(halves[0]);
  const right = halves.length === 2 ? group(halves[1]) : [];
  const missing = 8 - left.length - right.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0 || (halves.length === 2 && missing < 1)) return undefined;
  const groups = [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...right];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return undefined;
  let value = groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
  if (tailV4 !== undefined) value = (value & ~0xffffffffn) | tailV4;
  return { value, bits: 128 };
}

/** A CIDR block (`192.0.2.0/24`, `2001:db8::/32`; a bare address is a /32 or /128), or undefined. */
export function parseCidr(text: string): { value: bigint; bits: 32 | 128; prefix: number } | undefined {
  const [addr, prefixText, ...rest] = text.trim().split('/');
  if (rest.length) return undefined;
  const ip = parseIp(addr);
  if (!ip) return undefined;
  const prefix = prefixText === undefined ? ip.bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= ip.bits)) return undefined;
  return { ...ip, prefix };
}

const V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const blocks = new Map<string, ReturnType<typeof parseCidr>>();

/** A policy's CIDR block, parsed once per process. */
function cachedCidr(cidr: string): ReturnType<typeof parseCidr> {
  if (!blocks.has(cidr)) {
    if (blocks.size > 5000) blocks.clear();
    blocks.set(cidr, parseCidr(cidr));
  }
  return blocks.get(cidr);
}

/** IPv4 in plain numbers: the hot case of aws:SourceIp. */
function v4InBlock(address: string, block: { value: bigint; prefix: number }): boolean | undefined {
  const m = V4.exec(address);
  if (!m) return undefined;
  const parts = [+m[1], +m[2], +m[3], +m[4]];
  if (parts.some((p) => p > 255)) return false;
  const value = parts[0] * 16777216 + parts[1] * 65536 + parts[2] * 256 + parts[3];
  const size = 2 ** (32 - block.prefix);
  return Math.floor(value / size) === Math.floor(Number(block.value) / size);
}

/** Whether an address lies in a CIDR block (IPv4-mapped IPv6 addresses count as their IPv4 address). */
export function ipInCidr(address: string, cidr: string): boolean {
  const block = cachedCidr(cidr);
  if (block?.bits === 32) {
    const fast = v4InBlock(address.startsWith('::ffff:') ? address.slice(7) : address, block);
    if (fast !== undefined) return fast;
  }
  let ip = parseIp(address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address);
  if (!block || !ip) return false;
  if (ip.bits !== block.bits) return false;
  const shift = BigInt(ip.bits - block.prefix);
  ip = { ...ip, value: ip.value >> shift };
  return ip.value === block.value >> shift;
}
