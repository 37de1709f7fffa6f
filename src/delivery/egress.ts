/**
 * The egress guard (SSRF): every outgoing request (webhook events, transcript and summary
 * deliveries) may reach public addresses only.
 *
 * - At registration (createWebhook, deliverTranscript/deliverSummary) `checkUrl` demands http or
 *   https, resolves the host name and refuses it when any address it resolves to is refused (or
 *   when it does not resolve at all).
 * - At every send, the undici connector made by `connector` refuses an IP literal before
 *   connecting, resolves names through `lookup` (every address checked), and checks the address
 *   the socket actually connected to, so DNS answers that change in between (rebinding) gain nothing.
 *
 * Refused: unspecified, "this network", loopback, private (RFC 1918, IPv6 unique local), shared
 * CGNAT space, link-local, multicast, reserved, documentation and benchmarking ranges, known cloud
 * metadata addresses, and IPv4-mapped, NAT64 and 6to4 IPv6 forms of refused IPv4 addresses. The
 * allow-list (EGRESS_ALLOW_CIDRS) overrides all of it, e.g. for a receiver on 127.0.0.1 in tests.
 */
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookupAsync } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import { parseCidr } from '../config.js';
import type { DestinationCheck } from '../domain/deliveries.js';
import { DomainError } from '../domain/errors.js';

export class EgressRefusedError extends Error {
  readonly code = 'EGRESS_REFUSED';
  override name = 'EgressRefusedError';
}

type Range = readonly [cidr: string, what: string];

const metadata = 'a cloud metadata address';

/** Checked in order, so the specific names (metadata) come before the ranges that contain them. */
const ipv4Ranges: readonly Range[] = [
  ['169.254.169.254/32', metadata],
  ['169.254.170.2/32', metadata],
  ['100.100.100.200/32', metadata],
  ['168.63.129.16/32', metadata],
  ['0.0.0.0/8', 'an unspecified ("this network") address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a shared (CGNAT) address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'a reserved (IETF protocol) address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a reserved (6to4 relay) address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved address'],
];

const ipv6Ranges: readonly Range[] = [
  ['fd00:ec2::254/128', metadata],
  ['::/128', 'an unspecified address'],
  ['::1/128', 'a loopback address'],
  ['::/96', 'a reserved (IPv4-compatible) address'],
  ['64:ff9b:1::/48', 'a private (local NAT64) address'],
  ['100::/64', 'a reserved (discard) address'],
  ['2001:db8::/32', 'a documentation address'],
  ['fc00::/7', 'a private (unique local) address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a private (site-local) address'],
  ['ff00::/8', 'a multicast address'],
];

function compile(ranges: readonly Range[], family: 'ipv4' | 'ipv6') {
  return ranges.map(([cidr, what]) => {
    const list = new BlockList();
    const [address, prefix] = cidr.split('/') as [string, string];
    list.addSubnet(address, Number(prefix), family);
    return { list, what };
  });
}

const ipv4Checks = compile(ipv4Ranges, 'ipv4');
const ipv6Checks = compile(ipv6Ranges, 'ipv6');

/** The 16 bytes of an IPv6 address (zone id dropped, embedded dotted IPv4 tail allowed). */
function ipv6Bytes(address: string): number[] {
  let text = address.split('%')[0]!;
  let tail: number[] = [];
  if (text.includes('.')) {
    const cut = text.lastIndexOf(':');
    tail = text
      .slice(cut + 1)
      .split('.')
      .map(Number);
    text = `${text.slice(0, cut + 1)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups =
    rest === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  const bytes = groups.flatMap((g) => {
    const n = Number.parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The IPv4 address an IPv6 address stands for (mapped, NAT64 well-known prefix, 6to4), if any. */
function embeddedIPv4(bytes: number[]): string | null {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const v4 = (at: number) => bytes.slice(at, at + 4).join('.');
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4(12); // ::ffff:a.b.c.d
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12))
    return v4(12); // 64:ff9b::a.b.c.d
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4(2); // 2002:aabb:ccdd::
  return null;
}

/** Removes the brackets of an IPv6 literal host (`[::1]`). */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (hostname) => dnsLookupAsync(hostname, { all: true, verbatim: true });

export class EgressGuard {
  private readonly allowed = new BlockList();

  constructor(
    allowCidrs: readonly string[] = [],
    private readonly resolve: Resolve = systemResolve,
  ) {
    for (const entry of allowCidrs) {
      const cidr = parseCidr(entry);
      if (!cidr) throw new Error(`not a CIDR: ${entry}`);
      this.allowed.addSubnet(cidr.address, cidr.prefix, cidr.family);
    }
  }

  /** Why `address` may not be reached (e.g. "a loopback address"), or null when it may. */
  refusal(address: string): string | null {
    const bare = bareHost(address).split('%')[0]!;
    const version = isIP(bare);
    if (version === 0) return 'not an IP address';
    const family = version === 4 ? 'ipv4' : 'ipv6';
    if (this.allowed.check(bare, family)) return null;
    if (version === 4) return ipv4Checks.find((c) => c.list.check(bare, 'ipv4'))?.what ?? null;
    const embedded = embeddedIPv4(ipv6Bytes(bare));
    if (embedded) {
      const inner = this.refusal(embedded);
      return inner && `an IPv6 form of ${embedded}, ${inner}`;
    }
    return ipv6Checks.find((c) => c.list.check(bare, 'ipv6'))?.what ?? null;
  }

  private refuseAddress(host: string, address: string): void {
    const why = this.refusal(address);
    if (why === null) return;
    const where = host === address ? address : `${host} resolves to ${address}, which`;
    throw new EgressRefusedError(`${where} is ${why}`);
  }

  /** Every address of `hostname`, each allowed; throws EgressRefusedError otherwise. */
  async resolveAllowed(hostname: string): Promise<LookupAddress[]> {
    let addresses: LookupAddress[];
    try {
      addresses = await this.resolve(hostname);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA' || code === undefined)
        throw new EgressRefusedError(`the host ${hostname} cannot be resolved`);
      throw new EgressRefusedError(`the host ${hostname} could not be resolved (${code}); try again later`);
    }
    if (addresses.length === 0) throw new EgressRefusedError(`the host ${hostname} cannot be resolved`);
    for (const { address } of addresses) this.refuseAddress(hostname, address);
    return addresses;
  }

  /** Checks a URL before it is stored or used: http(s), and a host whose every address is allowed. */
  async checkUrl(raw: string): Promise<void> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new EgressRefusedError('it is not an absolute URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new EgressRefusedError('only http and https are allowed');
    const host = bareHost(url.hostname);
    if (isIP(host)) this.refuseAddress(host, host);
    else await this.resolveAllowed(host);
  }

  /** The check of destination URLs at registration: a refusal is BAD_USER_INPUT naming the parameter. */
  readonly destinationCheck: DestinationCheck = async (url, parameter) => {
    try {
      await this.checkUrl(url);
    } catch (error) {
      if (error instanceof EgressRefusedError)
        throw new DomainError('BAD_USER_INPUT', `${parameter} is refused: ${error.message}.`);
      throw error;
    }
  };

  /** A `lookup` for net/tls.connect that fails when any resolved address is refused. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolveAllowed(hostname).then(
      (addresses) => {
        const wanted =
          options.family === 4 || options.family === 6
            ? addresses.filter((a) => a.family === options.family)
            : addresses;
        if (wanted.length === 0) {
          callback(new EgressRefusedError(`the host ${hostname} has no IPv${options.family} address`), '', 0);
        } else if (options.all) callback(null, wanted);
        else callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };

  /**
   * An undici connector: IP literals are checked before connecting, names resolve through the
   * guarded lookup, and the address actually connected to is checked before any byte is sent.
   */
  connector(connectTimeoutMs: number): buildConnector.connector {
    const connect = buildConnector({ timeout: connectTimeoutMs, lookup: this.lookup });
    return (options, callback) => {
      const host = bareHost(options.hostname);
      if (isIP(host)) {
        const why = this.refusal(host);
        if (why !== null) {
          callback(new EgressRefusedError(`${host} is ${why}`), null);
          return;
        }
      }
      connect(options, (error, socket) => {
        if (error) {
          callback(error, null);
          return;
        }
        const remote = socket!.remoteAddress;
        const why = remote ? this.refusal(remote) : 'an unknown address';
        if (why !== null) {
          socket!.destroy();
          callback(
            new EgressRefusedError(`connected to ${remote ?? 'an unknown address'}, which is ${why}`),
            null,
          );
          return;
        }
        callback(null, socket!);
      });
    };
  }
}
