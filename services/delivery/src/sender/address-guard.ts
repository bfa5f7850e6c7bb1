import dns from 'node:dns';
import net from 'node:net';

/** Why an address may not receive webhooks, or undefined when it may. */
export type AddressVerdict = string | undefined;

const v4Rules: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local or metadata'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const v4Reasons = v4Rules.map(([addr, prefix, reason]) => {
  const list = new net.BlockList();
  list.addSubnet(addr, prefix, 'ipv4');
  return { list, reason };
});
/** Cloud metadata endpoints outside the ranges above. */
const METADATA_V4 = new Set(['168.63.129.16']);

const v6Rules: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fc00::', 7, 'private (unique local)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
  ['2001:db8::', 32, 'reserved'],
];
const v6Reasons = v6Rules.map(([addr, prefix, reason]) => {
  const list = new net.BlockList();
  list.addSubnet(addr, prefix, 'ipv6');
  return { list, reason };
});

/** IPv4 embedded in an IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible or NAT64 (64:ff9b::) IPv6 address. */
function embeddedV4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1], 16);
    const lo = parseInt(hex[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return undefined;
}

/** Classifies an IP address: loopback, private, link-local, metadata, ... or undefined for a public one. */
export function forbiddenAddressReason(address: string): AddressVerdict {
  const family = net.isIP(address);
  if (family === 4) {
    if (METADATA_V4.has(address)) return 'metadata';
    if (address === '169.254.169.254') return 'metadata';
    for (const r of v4Reasons) if (r.list.check(address, 'ipv4')) return r.reason;
    if (address === '255.255.255.255') return 'broadcast';
    return undefined;
  }
  if (family === 6) {
    const inner = embeddedV4(address);
    if (inner) return forbiddenAddressReason(inner);
    for (const r of v6Reasons) if (r.list.check(address, 'ipv6')) return r.reason;
    return undefined;
  }
  return 'not an IP address';
}

/** Refused by the SSRF guard; the attempt fails and is retried like any connection error. */
export class ForbiddenDestinationError extends Error {
  readonly code = 'EFORBIDDENDEST';
  constructor(host: string, address: string, reason: string) {
    super(`destination ${host} resolves to ${address} (${reason}); refused`);
    this.name = 'ForbiddenDestinationError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that resolves the host, refuses it when any of
 * its addresses is forbidden, and hands the connection exactly the addresses it
 * checked: the check and the connection use one resolution, so a DNS answer
 * that changes in between (rebinding) cannot slip through.
 */
export function createGuardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses;
      if (!allowPrivate) {
        for (const a of list) {
          const reason = forbiddenAddressReason(a.address);
          if (reason) return callback(new ForbiddenDestinationError(hostname, a.address, reason), '');
        }
      }
      if (!list.length) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/** The host of a URL without IPv6 brackets. */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Checks a destination URL before it is stored or sent to: scheme (https only in
 * production), and, unless private destinations are allowed, an IP literal or
 * the host's current DNS answer against the forbidden ranges. A host that does
 * not resolve now is accepted (its attempts fail and retry); the connect-time
 * lookup checks again at every connection.
 */
export async function checkDestination(
  raw: string,
  opts: { production: boolean; allowPrivate: boolean; resolveTimeoutMs?: number },
): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use http or https';
  if (opts.production && url.protocol !== 'https:') return 'must use https';
  if (url.username || url.password) return 'must not carry credentials';
  if (opts.allowPrivate) return undefined;
  const host = urlHost(url);
  if (net.isIP(host)) {
    const reason = forbiddenAddressReason(host);
    return reason ? `points to a ${reason} address` : undefined;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return 'points to a loopback address';
  const addresses = await Promise.race([
    dns.promises.lookup(host, { all: true }).catch(() => [] as dns.LookupAddress[]),
    new Promise<dns.LookupAddress[]>((resolve) => setTimeout(() => resolve([]), opts.resolveTimeoutMs ?? 2000).unref()),
  ]);
  for (const a of addresses) {
    const reason = forbiddenAddressReason(a.address);
    if (reason) return `resolves to a ${reason} address (${a.address})`;
  }
  return undefined;
}
