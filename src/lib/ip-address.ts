import { isIPv4, isIPv6 } from 'node:net';

/** An IP address as a number: 32 bits for IPv4, 128 for IPv6. */
export interface IpAddress {
  readonly v6: boolean;
  readonly value: bigint;
}

/** A CIDR network: its first address and prefix length (a bare address is a /32 or /128). */
export interface IpNetwork extends IpAddress {
  readonly prefix: number;
}

const bitsOf = (a: IpAddress) => (a.v6 ? 128 : 32);
const v4 = (value: bigint): IpAddress => ({ v6: false, value });

/**
 * Any textual form of an IP address a URL parser or a resolver (inet_aton) accepts, as a number:
 * IPv4 in 1 to 4 parts, each decimal, octal (`0177`) or hex (`0x7f`), the last part filling the
 * bytes left (`127.1`, `2130706433`, `0`), with one trailing dot; IPv6 in brackets or not, with a
 * dotted IPv4 tail and a zone id (`fe80::1%eth0`). Undefined for anything else (a host name).
 */
export function parseIp(text: string): IpAddress | undefined {
  const t = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (t.includes(':')) return parseIPv6(t.replace(/%[^%]*$/, ''));
  const value = parseInetAton(t.endsWith('.') ? t.slice(0, -1) : t);
  return value === undefined ? undefined : v4(value);
}

/** One inet_aton part: decimal, octal with a leading 0, hex with 0x. */
function inetPart(p: string): bigint | undefined {
  if (/^0x[0-9a-f]*$/i.test(p)) return p.length === 2 ? 0n : BigInt(p);
  if (/^0[0-7]*$/.test(p)) return BigInt(`0o${p.slice(1) || '0'}`);
  if (/^[1-9][0-9]*$/.test(p)) return BigInt(p);
  return undefined;
}

function parseInetAton(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length > 4) return undefined;
  const nums = parts.map(inetPart);
  if (nums.some((n) => n === undefined)) return undefined;
  const last = nums.pop()!;
  if (nums.some((n) => n! > 255n) || last >= 1n << BigInt(32 - 8 * nums.length)) return undefined;
  return nums.reduce((acc: bigint, n, i) => acc | (n! << BigInt(24 - 8 * i)), last);
}

function parseIPv6(text: string): IpAddress | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  // a dotted IPv4 tail may end the whole address only
  const groups = (s: string, last: boolean): bigint[] | undefined => {
    if (s === '') return [];
    const out: bigint[] = [];
    const items = s.split(':');
    for (const [i, g] of items.entries()) {
      if (last && i === items.length - 1 && g.includes('.')) {
        if (!isIPv4(g)) return undefined;
        const n = parseInetAton(g)!;
        out.push(n >> 16n, n & 0xffffn);
      } else if (/^[0-9a-f]{1,4}$/i.test(g)) out.push(BigInt(`0x${g}`));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0], halves.length === 1);
  const tail = halves.length === 2 ? groups(halves[1], true) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...Array<bigint>(missing).fill(0n), ...tail];
  return { v6: true, value: all.reduce((acc, g) => (acc << 16n) | g, 0n) };
}

/**
 * A network as an operator writes it: an address in its canonical form (dotted IPv4 of four
 * decimal parts, or IPv6), optionally `/prefix`. Undefined when it is not one: `10/8` is not
 * taken as inet_aton's 0.0.0.10.
 */
export function parseCidr(text: string): IpNetwork | undefined {
  const [addr, len, extra] = text.trim().split('/');
  if (extra !== undefined || !(isIPv4(addr) || isIPv6(addr)) || addr.includes('%')) return undefined;
  const a = parseIp(addr)!;
  const bits = bitsOf(a);
  if (len !== undefined && !/^\d{1,3}$/.test(len)) return undefined;
  const prefix = len === undefined ? bits : Number(len);
  if (prefix > bits) return undefined;
  return { ...a, prefix, value: a.value & ~((1n << BigInt(bits - prefix)) - 1n) };
}

/** Whether `net` contains the address `a` (same family only). */
export function contains(net: IpNetwork, a: IpAddress): boolean {
  if (net.v6 !== a.v6) return false;
  const shift = BigInt(bitsOf(a) - net.prefix);
  return a.value >> shift === net.value >> shift;
}

/** Whether the network `outer` contains the whole network `inner`. */
export function covers(outer: IpNetwork, inner: IpNetwork): boolean {
  return outer.v6 === inner.v6 && outer.prefix <= inner.prefix && contains(outer, inner);
}

/** `len` bits of a 128-bit value starting at bit `from` (0 is the most significant). */
const bits128 = (value: bigint, from: number, len: number) => (value >> BigInt(128 - from - len)) & ((1n << BigInt(len)) - 1n);

/** Where RFC 6052 puts the IPv4 address for each prefix length: [start bit, bit count] pieces around the u octet (bits 64-71). */
const RFC6052: Record<number, [number, number][]> = {
  48: [
    [48, 16],
    [72, 16],
  ],
  56: [
    [56, 8],
    [72, 24],
  ],
  64: [[72, 32]],
  96: [[96, 32]],
};

const rfc6052 = (value: bigint, prefix: number) =>
  RFC6052[prefix].reduce((acc, [from, len]) => (acc << BigInt(len)) | bits128(value, from, len), 0n);

/**
 * The IPv4 address this host's own stack connects to for an IPv6 address: IPv4-mapped
 * `::ffff:a.b.c.d` and IPv4-compatible `::a.b.c.d` (so `::ffff:0.0.0.0` is 0.0.0.0). Undefined
 * for an IPv4 address or any other IPv6 one.
 */
export function mappedIPv4(a: IpAddress): IpAddress | undefined {
  return a.v6 && (a.value >> 32n === 0xffffn || a.value >> 32n === 0n) ? v4(a.value & 0xffffffffn) : undefined;
}

/**
 * The IPv4 addresses a translator or relay forwards a connection to an IPv6 address to: NAT64
 * `64:ff9b::/96` and the local-use `64:ff9b:1::/48` (every RFC 6052 layout that fits in it, as the
 * prefix length in use is not known); 6to4 `2002::/16` (bits 16-47); Teredo `2001::/32` (the
 * client, inverted in the last 32 bits); ISATAP (`::5efe:a.b.c.d` interface ids). Empty for an
 * IPv4 address or a plain IPv6 one.
 */
export function tunnelledIPv4(a: IpAddress): IpAddress[] {
  if (!a.v6) return [];
  const x = a.value;
  const low = x & 0xffffffffn;
  const out: bigint[] = [];
  if (x >> 32n === 0x0064ff9b_0000_0000_0000_0000n) out.push(low);
  if (x >> 80n === 0x0064ff9b_0001n) out.push(...[48, 56, 64, 96].map((p) => rfc6052(x, p)));
  if (x >> 112n === 0x2002n) out.push(bits128(x, 16, 32));
  if (x >> 96n === 0x2001_0000n) out.push(low ^ 0xffffffffn);
  if ((bits128(x, 64, 32) & ~0x03000000n) === 0x5efen) out.push(low);
  return out.map(v4);
}

/** An address as text: dotted IPv4, or IPv6 as eight uncompressed groups (what a BlockList or a URL parser reads back). */
export function formatIp(a: IpAddress): string {
  if (!a.v6) return [24n, 16n, 8n, 0n].map((s) => String((a.value >> s) & 255n)).join('.');
  return Array.from({ length: 8 }, (_, i) => ((a.value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
}
