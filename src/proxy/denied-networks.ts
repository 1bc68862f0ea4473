import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { contains, type IpAddress, type IpNetwork, mappedIPv4, parseCidr, parseIp, tunnelledIPv4 } from '../lib/ip-address.js';

/** Why the proxy refuses an address: listed in proxy.denied_networks, or loopback denied while authentication is on. */
export type DenyReason = 'listed' | 'loopback';

/** Loopback and unspecified networks: what reaches this host (0.0.0.0 and :: connect to it on Linux). */
const LOOPBACK_NETWORKS: readonly string[] = ['127.0.0.0/8', '::1/128', '0.0.0.0/8', '::/128'];

/** Why loopback is or is not denied, as the start-up log says it. */
export type LoopbackRule = 'denied' | 'allowed-by-config' | 'allowed-auth-off';

/** What the proxy may not connect to, from the configuration. */
export interface DeniedNetworksOptions {
  /** proxy.denied_networks (checked by the configuration: every entry parses). */
  listed: readonly string[];
  loopback: LoopbackRule;
}

const net = (text: string): IpNetwork => {
  const n = parseCidr(text);
  if (!n) throw new Error(`"${text}" is not an address or CIDR network`);
  return n;
};
const LOOPBACK = LOOPBACK_NETWORKS.map(net);
const UNSPECIFIED = [net('0.0.0.0/8'), net('::/128')];
/** Loopback as a translator or relay on this host would reach it (0.0.0.0/8 there is no destination). */
const TUNNELLED_LOOPBACK = [net('127.0.0.0/8')];
/** What an unspecified address connects to. */
const HOST = [parseIp('127.0.0.1')!, parseIp('::1')!];

/**
 * The proxy's denylist. An address, in whatever form it was written or resolved, is parsed and
 * normalised once into the addresses a connection to it may reach: itself and the IPv4 address
 * it maps (with 127.0.0.1 and ::1 for an unspecified one: 0.0.0.0 and :: connect to this host on
 * Linux), and the IPv4 addresses a NAT64, 6to4, Teredo or ISATAP relay would forward it to. It is
 * refused when any of them is in a denied network.
 */
export class DeniedNetworks {
  private readonly listed: IpNetwork[];
  private readonly decided = new Map<string, DenyReason | null>();
  /** hostReason's answers per host name (a datasource's host is asked on every request). */
  private readonly hosts = new Map<string, DenyReason | null>();

  constructor(readonly o: DeniedNetworksOptions) {
    this.listed = o.listed.map(net);
  }

  /** The rule from the configuration: loopback is denied with authentication on, unless proxy.allow_loopback. */
  static fromConfig(proxy: { denied_networks: readonly string[]; allow_loopback: boolean }, enableAuth: boolean): DeniedNetworks {
    return new DeniedNetworks({
      listed: proxy.denied_networks,
      loopback: !enableAuth ? 'allowed-auth-off' : proxy.allow_loopback ? 'allowed-by-config' : 'denied',
    });
  }

  /** Every network refused (the listed ones, then loopback when denied). */
  get networks(): readonly string[] {
    return this.o.loopback === 'denied' ? [...this.o.listed, ...LOOPBACK_NETWORKS] : this.o.listed;
  }

  /**
   * Why an address (an IP literal of a URL or a resolved address, in any form) is refused, or
   * undefined when it may be reached. Text that is not an IP address is refused: a resolver
   * answer must be one. Remembered per text (the lists never change).
   */
  reason(address: string): DenyReason | undefined {
    return remembered(this.decided, address, () => {
      const a = parseIp(address);
      return a ? this.check(a) : 'listed';
    });
  }

  /**
   * Why the host of a URL is refused before any lookup: an IP literal, in any form, by its
   * address; `localhost` and `*.localhost` (RFC 6761: always loopback, whatever the resolver
   * here does) as 127.0.0.1 and ::1. Undefined for other names: their resolved addresses are
   * checked when the connection is made.
   */
  hostReason(hostname: string): DenyReason | undefined {
    return remembered(this.hosts, hostname, () => {
      if (parseIp(hostname)) return this.reason(hostname) ?? null;
      if (/^(?:.+\.)?localhost\.?$/i.test(hostname)) return this.reason('127.0.0.1') ?? this.reason('::1') ?? null;
      return null;
    });
  }

  /**
   * A DNS lookup for the proxy's connections (undici's, the SQL proxy's sockets): every address
   * the name resolves to is checked, and one denied fails the lookup with code `EDENIED` and
   * `denied` (the reason), so the connection goes only to an address that was checked.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      for (const a of addresses) {
        const reason = this.reason(a.address);
        if (reason) return callback(Object.assign(new Error(`address ${a.address} is denied`), { code: 'EDENIED', denied: reason }), '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: unknown) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };

  private check(a: IpAddress): DenyReason | null {
    const mapped = mappedIPv4(a);
    const local = mapped ? [a, mapped] : [a];
    if (local.some((x) => inAny(UNSPECIFIED, x))) local.push(...HOST);
    const tunnelled = tunnelledIPv4(a);
    if ([...local, ...tunnelled].some((x) => inAny(this.listed, x))) return 'listed';
    if (this.o.loopback === 'denied' && (local.some((x) => inAny(LOOPBACK, x)) || tunnelled.some((x) => inAny(TUNNELLED_LOOPBACK, x))))
      return 'loopback';
    return null;
  }

  /** The start-up log line: what is denied, and how loopback is decided. */
  describe(): string {
    const loopback = {
      denied:
        'loopback and unspecified addresses are denied because authentication is on; to proxy to a service on this host (a local Prometheus), set proxy.allow_loopback: true',
      'allowed-by-config': 'loopback addresses are allowed (proxy.allow_loopback: true)',
      'allowed-auth-off': 'loopback addresses are allowed (authentication is off)',
    }[this.o.loopback];
    return `the datasource proxy denies ${this.networks.length ? this.networks.join(', ') : 'no network'} (proxy.denied_networks); ${loopback}`;
  }
}

const inAny = (nets: readonly IpNetwork[], a: IpAddress) => nets.some((n) => contains(n, a));

/** Bounds the remembered answers (cleared when full). */
const MAX_DECIDED_ADDRESSES = 1000;

/** `decide(key)` remembered in `decisions` (null: nothing denied), at most MAX_DECIDED_ADDRESSES of them. */
function remembered(decisions: Map<string, DenyReason | null>, key: string, decide: () => DenyReason | null): DenyReason | undefined {
  let r = decisions.get(key);
  if (r === undefined) {
    r = decide();
    if (decisions.size >= MAX_DECIDED_ADDRESSES) decisions.clear();
    decisions.set(key, r);
  }
  return r ?? undefined;
}
