import { type LookupAddress, type LookupAllOptions, lookup } from "node:dns";
import { BlockList, isIP } from "node:net";
import { promisify } from "node:util";

/**
 * Why an outside address (a webhook receiver, an image source, an image prompt) may not be called: it is
 * inside the server's network, or in a range of the IANA IPv4 and IPv6 Special-Purpose Address Registries
 * (RFC 6890 and later), none of which is a public web server's address.
 */
export type ForbiddenReason = string;

type Family = "ipv4" | "ipv6";

const RANGES: [ForbiddenReason, Family, string, number][] = [
  // Checked first, so that the most telling reason is given: AWS, GCP and Azure; Alibaba; AWS over IPv6.
  ["cloud metadata", "ipv4", "169.254.169.254", 32],
  ["cloud metadata", "ipv4", "100.100.100.200", 32],
  ["cloud metadata", "ipv6", "fd00:ec2::254", 128],
  ["loopback", "ipv4", "127.0.0.0", 8],
  ["loopback", "ipv6", "::1", 128],
  ["unspecified", "ipv4", "0.0.0.0", 8],
  ["unspecified", "ipv6", "::", 128],
  ["private", "ipv4", "10.0.0.0", 8],
  ["private", "ipv4", "172.16.0.0", 12],
  ["private", "ipv4", "192.168.0.0", 16],
  ["shared (carrier-grade NAT)", "ipv4", "100.64.0.0", 10],
  ["private", "ipv6", "fc00::", 7],
  ["link-local", "ipv4", "169.254.0.0", 16],
  ["link-local", "ipv6", "fe80::", 10],
  ["site-local", "ipv6", "fec0::", 10],
  ["multicast", "ipv4", "224.0.0.0", 4],
  ["multicast", "ipv6", "ff00::", 8],
  ["broadcast", "ipv4", "255.255.255.255", 32],
  ["reserved", "ipv4", "240.0.0.0", 4],
  ["protocol assignment", "ipv4", "192.0.0.0", 24],
  ["documentation", "ipv4", "192.0.2.0", 24],
  ["documentation", "ipv4", "198.51.100.0", 24],
  ["documentation", "ipv4", "203.0.113.0", 24],
  ["documentation", "ipv6", "2001:db8::", 32],
  ["documentation", "ipv6", "3fff::", 20],
  ["benchmarking", "ipv4", "198.18.0.0", 15],
  ["benchmarking", "ipv6", "2001:2::", 48],
  ["6to4 relay", "ipv4", "192.88.99.0", 24],
  ["reserved AS112", "ipv4", "192.31.196.0", 24],
  ["reserved AS112", "ipv4", "192.175.48.0", 24],
  ["reserved AS112", "ipv6", "2620:4f:8000::", 48],
  ["reserved AMT", "ipv4", "192.52.193.0", 24],
  ["local-use translation", "ipv6", "64:ff9b:1::", 48],
  ["discard-only", "ipv6", "100::", 64],
  ["dummy", "ipv6", "100:0:0:1::", 64],
  ["Teredo", "ipv6", "2001::", 32],
  ["protocol assignment", "ipv6", "2001::", 23],
  ["6to4", "ipv6", "2002::", 16],
  ["segment routing", "ipv6", "5f00::", 16],
  ["IPv4-compatible", "ipv6", "::", 96],
];

const BLOCKS = RANGES.map(([reason, family, network, prefix]) => {
  const block = new BlockList();
  block.addSubnet(network, prefix, family);
  return { reason, family, block };
});

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted IPv4 tail read as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, "");
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) =>
    part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16));
  const before = parse(head);
  const after = tail === undefined ? [] : parse(tail);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

function ipv4Of(high: number, low: number): string {
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/**
 * The IPv4 address an IPv6 one carries, by the forms that reach it: IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-translated `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4
 * `2002:AABB:CCDD::` and Teredo `2001:0:…` (the client's address, bits inverted).
 */
function embeddedIpv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const isZero = (...values: number[]) => values.every((value) => value === 0);
  if (isZero(g0, g1, g2, g3, g4) && g5 === 0xffff) return ipv4Of(g6, g7);
  if (isZero(g0, g1, g2, g3) && g4 === 0xffff && g5 === 0) return ipv4Of(g6, g7);
  if (isZero(g0, g1, g2, g3, g4, g5) && !(g6 === 0 && g7 <= 1)) return ipv4Of(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && isZero(g2, g3, g4, g5)) return ipv4Of(g6, g7);
  if (g0 === 0x2002) return ipv4Of(g1, g2);
  if (g0 === 0x2001 && g1 === 0) return ipv4Of(g6 ^ 0xffff, g7 ^ 0xffff);
  return undefined;
}

function rangeReason(address: string, family: Family): ForbiddenReason | undefined {
  return BLOCKS.find((entry) => entry.family === family && entry.block.check(address, family))?.reason;
}

/** Why `ip` may not be called, naming the IPv4 address it carries when that is the reason. */
export function forbiddenReason(ip: string): { reason: ForbiddenReason; embedded?: string } | undefined {
  if (isIP(ip) === 4) {
    const reason = rangeReason(ip, "ipv4");
    return reason ? { reason } : undefined;
  }
  const embedded = embeddedIpv4(ip);
  const embeddedReason = embedded ? rangeReason(embedded, "ipv4") : undefined;
  if (embedded && embeddedReason) return { reason: embeddedReason, embedded };
  const reason = rangeReason(ip, "ipv6");
  return reason ? { reason } : undefined;
}

export class ForbiddenAddressError extends Error {}

/**
 * The refusal's message names the address only when it was given as one: what a host name resolves to
 * inside the server's network is not the caller's to learn.
 */
function refuse(
  host: string,
  address: string,
  { reason, embedded }: { reason: ForbiddenReason; embedded?: string },
): ForbiddenAddressError {
  if (host !== address) return new ForbiddenAddressError(`${host} is an internal host`);
  return new ForbiddenAddressError(
    embedded ? `${address} embeds ${embedded}, a ${reason} address` : `${address} is a ${reason} address`,
  );
}

const lookupAll = promisify(lookup) as (
  hostname: string,
  options: LookupAllOptions,
) => Promise<LookupAddress[]>;

/** The host's addresses; throws ForbiddenAddressError when any of them is forbidden. */
export async function resolveAllowed(host: string): Promise<LookupAddress[]> {
  const bare = host.replace(/^\[|\]$/g, "");
  const addresses = isIP(bare)
    ? [{ address: bare, family: isIP(bare) }]
    : await lookupAll(bare, { all: true });
  for (const { address } of addresses) {
    const forbidden = forbiddenReason(address);
    if (forbidden) throw refuse(bare, address, forbidden);
  }
  return addresses;
}

/**
 * Refuses a URL's scheme when plain http is not allowed, and its host when it is an IP literal of a forbidden
 * range (sockets check the names they look up, see guardedLookup, but look up no literal).
 */
export async function assertAllowedUrl(
  url: URL,
  { allowHttp, allowPrivate }: { allowHttp: boolean; allowPrivate: boolean },
): Promise<void> {
  if (url.protocol === "http:" && !allowHttp) {
    throw new ForbiddenAddressError("http:// URLs are not allowed (WEBHOOK_ALLOW_HTTP)");
  }
  if (!allowPrivate && /^[\d.]+$|^\[/.test(url.hostname)) await resolveAllowed(url.hostname);
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for sockets (undici's `connect` option) that refuses forbidden addresses when the connection
 * is made, so that a host whose DNS changed after subscription is still refused.
 */
export function guardedLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  resolveAllowed(hostname).then(
    (addresses) => {
      const [first] = addresses as [LookupAddress];
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    },
    (error: NodeJS.ErrnoException) => callback(error, []),
  );
}
