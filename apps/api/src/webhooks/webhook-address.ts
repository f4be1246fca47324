import { type LookupAddress, type LookupAllOptions, lookup } from "node:dns";
import { BlockList, isIP } from "node:net";
import { promisify } from "node:util";

/** Why an address may not receive webhooks: the server would be calling into its own network. */
export type ForbiddenReason =
  | "cloud metadata"
  | "loopback"
  | "unspecified"
  | "private"
  | "link-local"
  | "multicast"
  | "reserved";

const RANGES: [ForbiddenReason, "ipv4" | "ipv6", string, number][] = [
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
  ["private", "ipv4", "100.64.0.0", 10],
  ["private", "ipv6", "fc00::", 7],
  ["link-local", "ipv4", "169.254.0.0", 16],
  ["link-local", "ipv6", "fe80::", 10],
  ["multicast", "ipv4", "224.0.0.0", 4],
  ["multicast", "ipv6", "ff00::", 8],
  ["reserved", "ipv4", "240.0.0.0", 4],
  ["reserved", "ipv4", "192.0.0.0", 24],
  ["reserved", "ipv4", "198.18.0.0", 15],
];

const BLOCKS = RANGES.map(([reason, family, network, prefix]) => {
  const block = new BlockList();
  block.addSubnet(network, prefix, family);
  return { reason, family, block };
});

/** `::ffff:127.0.0.1` and `::ffff:7f00:1` are 127.0.0.1. */
function unmapped(address: string): string {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (dotted) return dotted;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return address;
  const [high, low] = [Number.parseInt(hex[1] as string, 16), Number.parseInt(hex[2] as string, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** The reason an IP address may not receive webhooks, or undefined when it may. */
export function forbiddenReason(ip: string): ForbiddenReason | undefined {
  const address = unmapped(ip);
  const family = isIP(address) === 6 ? "ipv6" : "ipv4";
  return BLOCKS.find((entry) => entry.family === family && entry.block.check(address, family))?.reason;
}

export class ForbiddenAddressError extends Error {}

function refuse(host: string, address: string, reason: ForbiddenReason): ForbiddenAddressError {
  const resolved = host === address ? address : `${host} (${address})`;
  return new ForbiddenAddressError(`${resolved} is a ${reason} address`);
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
    const reason = forbiddenReason(address);
    if (reason) throw refuse(bare, address, reason);
  }
  return addresses;
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
