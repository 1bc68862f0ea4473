import { expect } from 'chai';
import { randomBytes, randomInt } from 'node:crypto';
import { BlockList } from 'node:net';
import { contains, covers, formatIp, mappedIPv4, parseCidr, parseIp, tunnelledIPv4 } from './ip-address.js';

const random32 = () => randomBytes(4).readUInt32BE();
/** One inet_aton part of `value`: decimal, octal or hex, in either case. */
const part = (value: number) =>
  [String(value), `0${value.toString(8)}`, `0x${value.toString(16)}`, `0X${value.toString(16).toUpperCase()}`][randomInt(4)];

/** A random inet_aton spelling of an IPv4 address: 1 to 4 parts, the last one filling the bytes left. */
function inetAtonForm(value: number): string {
  const n = randomInt(1, 5);
  const bytes = [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
  const lead = bytes.slice(0, n - 1);
  const last = bytes.slice(n - 1).reduce((acc, b) => acc * 256 + b, 0);
  return [...lead, last].map(part).join('.');
}

/** A random IPv6 spelling of 16 bytes: groups with or without leading zeros, any case, the longest zero run compressed or not, maybe a dotted tail. */
function ipv6Form(bytes: Buffer): string {
  const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(2 * i));
  const hex = groups.map((g) => {
    const h = g.toString(16);
    return randomInt(2) ? h.padStart(4, '0') : randomInt(2) ? h.toUpperCase() : h;
  });
  if (randomInt(2)) hex.splice(6, 2, `${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`);
  const text = hex.join(':');
  return randomInt(2) ? text : text.replace(/(^|:)(0{1,4}(:0{1,4})+)(:|$)/, '::');
}

describe('IP addresses: one parser for every form', () => {
  it('reads every inet_aton form of random IPv4 addresses as the WHATWG URL parser does', () => {
    for (let i = 0; i < 2000; i++) {
      const value = random32();
      const form = inetAtonForm(value);
      const parsed = parseIp(form);
      expect(parsed, form).to.deep.equal({ v6: false, value: BigInt(value) });
      expect(formatIp(parsed!), form).to.equal(new URL(`http://${form}/`).hostname);
    }
  });

  it('reads random IPv6 spellings as libuv does (a BlockList of the spelling holds the parsed address and nothing next to it)', () => {
    for (let i = 0; i < 2000; i++) {
      const bytes = randomBytes(16);
      if (i % 4 === 0) bytes.fill(0, 0, randomInt(1, 15)); // long zero runs
      const form = ipv6Form(bytes);
      const parsed = parseIp(form);
      expect(parsed?.v6, form).to.equal(true);
      const list = new BlockList();
      list.addAddress(form, 'ipv6');
      expect(list.check(formatIp(parsed!), 'ipv6'), form).to.equal(true);
      expect(list.check(formatIp({ v6: true, value: parsed!.value ^ 1n }), 'ipv6'), form).to.equal(false);
      expect(parseIp(`[${form}]`), 'in brackets').to.deep.equal(parsed);
      expect(parseIp(`${form}%eth0`), 'with a zone id').to.deep.equal(parsed);
    }
  });

  it('refuses what is not an address (names stay names)', () => {
    for (const text of [
      'localhost',
      'foo.localhost',
      'example.com',
      '1.2.3.4.5',
      '256.1.1.1',
      '1.16777216',
      '08.1.1.1',
      '1..2',
      '',
      ':::',
      '1:2:3:4:5:6:7:8:9',
      '::1::',
      'g::1',
      '1.2.3.4::',
    ]) {
      expect(parseIp(text), text).to.equal(undefined);
    }
  });

  it('finds the IPv4 address of mapped, compatible, NAT64, 6to4, Teredo and ISATAP forms', () => {
    const v4 = (t: string) => formatIp(parseIp(t)!);
    const all = (t: string) => [mappedIPv4(parseIp(t)!), ...tunnelledIPv4(parseIp(t)!)].filter((a) => a !== undefined).map(formatIp);
    expect(all('::ffff:169.254.169.254')).to.deep.equal(['169.254.169.254']);
    expect(all('::ffff:a9fe:a9fe')).to.deep.equal(['169.254.169.254']);
    expect(all('::169.254.169.254')).to.deep.equal(['169.254.169.254']);
    expect(all('64:ff9b::169.254.169.254')).to.deep.equal(['169.254.169.254']);
    expect(all('64:ff9b:1::a9fe:a9fe')).to.include('169.254.169.254');
    expect(all('64:ff9b:1:a9fe:a9:fe00::')).to.include('169.254.169.254'); // the /48 layout of RFC 6052
    expect(all('2002:a9fe:a9fe::1')).to.deep.equal(['169.254.169.254']);
    expect(all('2001:0:4136:e378:8000:63bf:80ff:fffe')).to.deep.equal(['127.0.0.1']);
    expect(all('fe80::5efe:169.254.169.254')).to.deep.equal(['169.254.169.254']);
    expect(all('2001:db8::200:5efe:7f00:1')).to.deep.equal(['127.0.0.1']);
    expect(all('2606:4700::1111')).to.deep.equal([]);
    expect(all('8.8.8.8')).to.deep.equal([]);
    expect(v4('::')).to.equal('0:0:0:0:0:0:0:0');
  });

  it('takes networks only in their usual form, and matches and compares them', () => {
    expect(parseCidr('10/8'), 'inet_aton short form').to.equal(undefined);
    expect(parseCidr('1.2.3.4/33')).to.equal(undefined);
    expect(parseCidr('::/129')).to.equal(undefined);
    expect(parseCidr('fe80::1%eth0')).to.equal(undefined);
    expect(parseCidr('10.1.2.3/8')).to.deep.equal({ v6: false, value: 10n << 24n, prefix: 8 });
    expect(contains(parseCidr('169.254.0.0/16')!, parseIp('169.254.169.254')!)).to.equal(true);
    expect(contains(parseCidr('169.254.0.0/16')!, parseIp('::ffff:169.254.169.254')!), 'families never mix').to.equal(false);
    expect(contains(parseCidr('::/0')!, parseIp('::1')!)).to.equal(true);
    expect(covers(parseCidr('0.0.0.0/0')!, parseCidr('10.0.0.0/8')!)).to.equal(true);
    expect(covers(parseCidr('172.16.0.0/16')!, parseCidr('172.16.0.0/12')!)).to.equal(false);
  });
});
