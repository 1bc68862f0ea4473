import { expect } from 'chai';
import { randomInt } from 'node:crypto';
import { DeniedNetworks } from './denied-networks.js';

const METADATA = ['169.254.0.0/16', 'fe80::/10', 'fd00:ec2::254/128', '100.100.100.200/32', '168.63.129.16/32'];

/** Every IPv6 spelling that carries the IPv4 address a.b.c.d, written independently of the parser. */
function ipv6Carriers(a: number, b: number, c: number, d: number): string[] {
  const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
  const inv = (x: number) => 255 - x;
  return [
    `::ffff:${a}.${b}.${c}.${d}`,
    `::ffff:${hex(a, b)}:${hex(c, d)}`,
    `0:0:0:0:0:FFFF:${hex(a, b).toUpperCase()}:${hex(c, d)}`,
    `::${a}.${b}.${c}.${d}`,
    `64:ff9b::${a}.${b}.${c}.${d}`,
    `64:ff9b::${hex(a, b)}:${hex(c, d)}`,
    `64:ff9b:1::${hex(a, b)}:${hex(c, d)}`,
    `2002:${hex(a, b)}:${hex(c, d)}::`,
    `2002:${hex(a, b)}:${hex(c, d)}:1::1`,
    `2001:0:4136:e378:8000:63bf:${hex(inv(a), inv(b))}:${hex(inv(c), inv(d))}`,
    `2001:db8::200:5efe:${a}.${b}.${c}.${d}`,
  ];
}

describe('proxy denylist', () => {
  const withAuth = new DeniedNetworks({ listed: METADATA, loopback: 'denied' });
  const authOff = new DeniedNetworks({ listed: METADATA, loopback: 'allowed-auth-off' });

  it('refuses the metadata address and loopback in every form (random addresses of each network)', () => {
    for (let i = 0; i < 200; i++) {
      const meta = [169, 254, randomInt(256), randomInt(256)] as const;
      for (const form of ipv6Carriers(...meta)) expect(withAuth.reason(form), form).to.equal('listed');
      const lo = [127, randomInt(256), randomInt(256), randomInt(1, 255)] as const;
      for (const form of ipv6Carriers(...lo)) expect(withAuth.reason(form), form).to.equal('loopback');
    }
  });

  it('lets public addresses through in the same forms', () => {
    for (let i = 0; i < 200; i++) {
      const pub = [randomInt(1, 100), randomInt(256), randomInt(256), randomInt(1, 255)] as const;
      for (const form of ipv6Carriers(...pub)) expect(withAuth.reason(form), form).to.equal(undefined);
    }
  });

  it('treats unspecified addresses as loopback, and allows loopback when configured', () => {
    for (const a of [
      '0.0.0.0',
      '0',
      '0.1.2.3',
      '::',
      '[::]',
      '::ffff:0.0.0.0',
      '::ffff:0:0',
      '127.0.0.1',
      '127.1',
      '2130706433',
      '::1',
      '[::1]',
      '::ffff:127.0.0.1',
    ]) {
      expect(withAuth.reason(a), a).to.equal('loopback');
      expect(authOff.reason(a), a).to.equal(undefined);
    }
    const listed = new DeniedNetworks({ listed: ['127.0.0.0/8'], loopback: 'allowed-by-config' });
    expect(listed.reason('0.0.0.0'), 'an unspecified address is matched as 127.0.0.1').to.equal('listed');
    expect(listed.reason('::'), ':: too').to.equal('listed');
  });

  it('refuses the listed metadata spellings of the review (issue 33) and zone ids', () => {
    for (const a of [
      '64:ff9b::a9fe:a9fe',
      '::169.254.169.254',
      '2002:a9fe:a9fe::',
      '169.254.169.254.',
      '0xa9fea9fe',
      '2852039166',
      'fe80::1%eth0',
      'fd00:ec2::254',
    ]) {
      expect(authOff.reason(a), a).to.equal('listed');
    }
  });

  it('refuses localhost names before any lookup when loopback is denied (RFC 6761), and leaves other names to the resolved-address check', () => {
    for (const host of ['localhost', 'LOCALHOST.', 'foo.localhost', 'a.b.Localhost.']) {
      expect(withAuth.hostReason(host), host).to.equal('loopback');
      expect(authOff.hostReason(host), host).to.equal(undefined);
    }
    for (const host of ['localhost.example.com', 'notlocalhost', 'prometheus']) expect(withAuth.hostReason(host), host).to.equal(undefined);
    expect(withAuth.hostReason('[::ffff:a9fe:a9fe]')).to.equal('listed');
  });

  it('refuses a resolver answer that is not an address', () => {
    expect(authOff.reason('not-an-address')).to.equal('listed');
  });

  it('says at start what it denies and how loopback is decided', () => {
    expect(withAuth.describe()).to.contain('127.0.0.0/8').and.contain('::1/128').and.contain('proxy.allow_loopback: true');
    expect(authOff.describe()).to.contain('authentication is off').and.not.contain('127.0.0.0/8');
    expect(DeniedNetworks.fromConfig({ denied_networks: [], allow_loopback: true }, true).describe())
      .to.contain('no network')
      .and.contain('allowed (proxy.allow_loopback: true)');
  });
});
