import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** Why an address may not receive webhooks, or undefined when it may. */
export type AddressVerdict = string | undefined;

type Rule<T> = { range: [T, number]; reason: string };
const v4Rule = (cidr: string, reason: string): Rule<ipaddr.IPv4> => ({ range: ipaddr.IPv4.parseCIDR(cidr), reason });
const v6Rule = (cidr: string, reason: string): Rule<ipaddr.IPv6> => ({ range: ipaddr.IPv6.parseCIDR(cidr), reason });

/** IPv4 ranges that may not receive webhooks; the first match names the reason (single addresses first). */
const V4_RULES = [
  v4Rule('169.254.169.254/32', 'metadata'),
  v4Rule('168.63.129.16/32', 'metadata'), // Azure's wire server, outside the ranges below
  v4Rule('255.255.255.255/32', 'broadcast'),
  v4Rule('0.0.0.0/8', 'unspecified'),
  v4Rule('10.0.0.0/8', 'private'),
  v4Rule('100.64.0.0/10', 'private (carrier-grade NAT)'),
  v4Rule('127.0.0.0/8', 'loopback'),
  v4Rule('169.254.0.0/16', 'link-local or metadata'),
  v4Rule('172.16.0.0/12', 'private'),
  v4Rule('192.0.0.0/24', 'reserved'),
  v4Rule('192.0.2.0/24', 'documentation'),
  v4Rule('192.168.0.0/16', 'private'),
  v4Rule('198.18.0.0/15', 'reserved'),
  v4Rule('198.51.100.0/24', 'documentation'),
  v4Rule('203.0.113.0/24', 'documentation'),
  v4Rule('224.0.0.0/4', 'multicast'),
  v4Rule('240.0.0.0/4', 'reserved'),
];

/** IPv6 ranges that may not receive webhooks, whatever their last bits hold. */
const V6_RULES = [
  v6Rule('::/128', 'unspecified'),
  v6Rule('::1/128', 'loopback'),
  v6Rule('fc00::/7', 'private (unique local)'),
  v6Rule('fe80::/10', 'link-local'),
  v6Rule('fec0::/10', 'site-local'),
  v6Rule('ff00::/8', 'multicast'),
  v6Rule('2001:db8::/32', 'documentation'),
  v6Rule('3fff::/20', 'documentation'),
];

/** Where an IPv6 transition form carries an IPv4 address, as the 8 16-bit parts of the IPv6 address. */
type Embedding = {
  range: [ipaddr.IPv6, number];
  form: string;
  ipv4: (parts: number[]) => [number, number];
  /** Refused even when the IPv4 inside is public: deprecated forms that no real destination uses. */
  refuseAll?: string;
};
const low32 = (p: number[]): [number, number] => [p[6], p[7]];
const EMBEDDINGS: Embedding[] = [
  { range: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), form: 'IPv4-mapped', ipv4: low32 },
  {
    range: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'),
    form: 'IPv4-translated',
    ipv4: low32,
    refuseAll: 'reserved (IPv4-translated)',
  },
  // After ::/128 and ::1/128 above; deprecated by RFC 4291.
  { range: ipaddr.IPv6.parseCIDR('::/96'), form: 'IPv4-compatible', ipv4: low32, refuseAll: 'reserved (IPv4-compatible)' },
  { range: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), form: 'NAT64', ipv4: low32 },
  // Local-use NAT64 (RFC 8215), read with the /96 layout (the IPv4 in the last 32 bits) that the well-known prefix uses.
  { range: ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'), form: 'NAT64', ipv4: low32 },
  { range: ipaddr.IPv6.parseCIDR('2002::/16'), form: '6to4', ipv4: (p) => [p[1], p[2]] },
  // Teredo: the client's IPv4 is the last 32 bits, inverted.
  { range: ipaddr.IPv6.parseCIDR('2001::/32'), form: 'Teredo', ipv4: (p) => [~p[6] & 0xffff, ~p[7] & 0xffff] },
];

/**
 * The special-purpose ranges of ipaddr.js (`range()`, maintained with the IANA special-purpose address
 * registries) that are globally reachable, and so may receive webhooks: every other range it names is
 * refused, so a range the registry adds is refused once the library knows it, without a list here.
 * (`unicast` is every address outside the named ranges.) IANA: AS112 and AMT relays, ORCHIDv2 and
 * DRIP entity tags are "globally reachable"; benchmarking, discard-only, 6a44 relay, deprecated
 * ORCHID, segment routing and the rest of 2001::/23 are not.
 */
const GLOBALLY_REACHABLE = new Set(['unicast', 'as112', 'amt', 'as112v6', 'orchid2', 'droneRemoteIdProtocolEntityTags']);

function specialPurpose(address: ipaddr.IPv4 | ipaddr.IPv6): AddressVerdict {
  const range = address.range();
  return GLOBALLY_REACHABLE.has(range) ? undefined : `special-purpose (${range}), not globally reachable`;
}

function classifyV4(address: ipaddr.IPv4): AddressVerdict {
  return V4_RULES.find((r) => address.match(r.range))?.reason ?? specialPurpose(address);
}

function classifyV6(address: ipaddr.IPv6): AddressVerdict {
  const rule = V6_RULES.find((r) => address.match(r.range));
  if (rule) return rule.reason;
  const embedding = EMBEDDINGS.find((e) => address.match(e.range));
  // Not a transition form: judged by its own range.
  if (!embedding) return specialPurpose(address);
  const [hi, lo] = embedding.ipv4(address.parts);
  const inner = new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  const reason = classifyV4(inner);
  if (reason) return `${reason} ${inner.toString()} via ${embedding.form}`;
  return embedding.refuseAll;
}

/**
 * Classifies an IP address on its parsed bytes (any spelling of one address gets one answer): loopback, private,
 * link-local, metadata, documentation, ... or undefined for a public one. IPv6 transition forms (IPv4-mapped,
 * -compatible, -translated, NAT64, 6to4, Teredo) are judged by the IPv4 address they carry.
 */
export function forbiddenAddressReason(address: string): AddressVerdict {
  const family = net.isIP(address);
  try {
    if (family === 4) return classifyV4(ipaddr.IPv4.parse(address));
    if (family === 6) return classifyV6(ipaddr.IPv6.parse(hexIPv6(address)));
  } catch {
    // net.isIP accepted what the parsers refuse: fail closed
  }
  return 'not an IP address';
}

/**
 * An IPv6 address in hex groups only, without a zone id (which does not change the range). ipaddr.js reads the
 * dotted `::a.b.c.d` as `::ffff:a.b.c.d` rather than as its bytes (`::ab:cd`), so the WHATWG URL parser writes the
 * address out first.
 */
function hexIPv6(address: string): string {
  return new URL(`http://[${address.split('%')[0]}]/`).hostname.slice(1, -1);
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
  return checkHost(urlHost(url), opts);
}

/**
 * Checks a host (a name or an IP literal, without brackets) before it is stored: unless private destinations are
 * allowed, an IP literal or the name's current DNS answer against the forbidden ranges. The hosts of broker
 * destinations (Kafka brokers, an AMQP server, an SQS endpoint) take the same check as an HTTP destination's.
 */
export async function checkHost(
  host: string,
  opts: { allowPrivate: boolean; resolveTimeoutMs?: number },
): Promise<string | undefined> {
  if (opts.allowPrivate) return undefined;
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
