import { isIP } from 'node:net';

/**
 * Which webhook URLs the execution service may call (SSRF protection): the
 * policy `PARLEY_WEBHOOK_ALLOW`, checked when a subscription is registered and
 * again before every delivery.
 *
 * With patterns (a comma-separated list), a URL must match one of them:
 *
 *     <scheme>://<host>[:<port>|:*][<path prefix>]
 *
 * - scheme `http` or `https`, compared exactly;
 * - host: a name or IP literal (IPv6 in brackets), compared after the same
 *   normalisation a URL gets (lower case, IDN to punycode, IPv4 forms to
 *   dotted quads, a trailing dot dropped); `*.example.com` matches any name
 *   below example.com (a.example.com, a.b.example.com) but not example.com
 *   itself; `*` alone matches every host, private addresses included (for
 *   development: say what you mean in production);
 * - port: a number, `*` for any, or none for the scheme's default (443, 80);
 * - path prefix: none (or `/`) for any path; `/parley/` matches /parley/ and
 *   below; `/parley` matches /parley and /parley/... but not /parley-x.
 *   URLs are compared after resolving `.` and `..` segments.
 *
 * Without patterns (unset or empty) the default: https only, to a host that
 * is not `localhost` (or `*.localhost`) nor an IP literal outside public
 * unicast space (loopback, RFC 1918 and fc00::/7 private, 100.64/10 shared,
 * 169.254/16 and fe80::/10 link-local with the cloud metadata address
 * 169.254.169.254, unspecified, multicast, reserved; IPv4-mapped IPv6
 * addresses are judged by their IPv4 address). A name is checked again at
 * delivery by what it resolves to (webhooks.ts).
 *
 * Userinfo, query and fragment are not part of the match (a URL may carry
 * them; a pattern may not).
 */
export interface WebhookUrlPolicy {
  /** The patterns as configured; empty for the default policy. */
  readonly patterns: readonly string[];
  /** Why `url` may not be called, or undefined when it may. */
  refusal(url: string): string | undefined;
  /** For a URL the policy allows: whether its host is a name to resolve and check (default policy only). */
  resolveToCheck(url: string): string | undefined;
}

/** A pattern of PARLEY_WEBHOOK_ALLOW that does not parse. */
export class WebhookAllowError extends Error {
  override readonly name = 'WebhookAllowError';
}

interface Pattern {
  readonly source: string;
  readonly scheme: 'http' | 'https';
  /** Exact host, or the suffix (with its leading dot) of a `*.` pattern, or null for `*`. */
  readonly host: string | null;
  readonly wildcard: boolean;
  /** null: any port. */
  readonly port: number | null;
  /** null: any path. */
  readonly path: string | null;
}

const DEFAULT_PORT = { http: 80, https: 443 } as const;
const PATTERN = /^(https?):\/\/(\*|\*\.[^/:[\]*@?#\s]+|\[[0-9A-Fa-f:.]+\]|[^/:[\]*@?#\s]+)(?::(\*|[0-9]{1,5}))?(\/[^?#\s]*)?$/;

function normalHost(host: string): string {
  const h = host.toLowerCase();
  return h.endsWith('.') && !h.startsWith('[') ? h.slice(0, -1) : h;
}

function parsePattern(raw: string): Pattern {
  const m = PATTERN.exec(raw);
  if (!m) throw new WebhookAllowError(`"${raw}" is not a webhook URL pattern: <http|https>://<host, *.domain or *>[:<port>|:*][/path prefix]`);
  const scheme = m[1] as 'http' | 'https';
  const hostPart = m[2]!;
  const port = m[3] === undefined ? DEFAULT_PORT[scheme] : m[3] === '*' ? null : Number(m[3]);
  if (port !== null && (port < 1 || port > 65535)) throw new WebhookAllowError(`"${raw}": port ${m[3]} is out of range`);
  let path: string | null = null;
  if (m[4] !== undefined && m[4] !== '/') {
    try {
      path = new URL(m[4], 'http://x').pathname;
    } catch {
      throw new WebhookAllowError(`"${raw}": bad path prefix`);
    }
  }
  if (hostPart === '*') return { source: raw, scheme, host: null, wildcard: true, port, path };
  const wildcard = hostPart.startsWith('*.');
  let host: string;
  try {
    host = normalHost(new URL(`${scheme}://${wildcard ? hostPart.slice(2) : hostPart}/`).hostname);
  } catch {
    throw new WebhookAllowError(`"${raw}": "${hostPart}" is not a host name`);
  }
  if (wildcard && (isIP(host.replace(/^\[|\]$/g, '')) !== 0 || !/[a-z]/.test(host))) {
    throw new WebhookAllowError(`"${raw}": a *. wildcard stands before a domain name, not an address`);
  }
  return { source: raw, scheme, host: wildcard ? `.${host}` : host, wildcard, port, path };
}

function matches(p: Pattern, u: URL): boolean {
  if (u.protocol !== `${p.scheme}:`) return false;
  const host = normalHost(u.hostname);
  if (p.host !== null && (p.wildcard ? !host.endsWith(p.host) || host.length === p.host.length : host !== p.host)) return false;
  const port = u.port === '' ? DEFAULT_PORT[p.scheme] : Number(u.port);
  if (p.port !== null && port !== p.port) return false;
  if (p.path !== null) {
    const path = u.pathname;
    const ok = p.path.endsWith('/') ? path.startsWith(p.path) : path === p.path || path.startsWith(`${p.path}/`);
    if (!ok) return false;
  }
  return true;
}

/** A policy from a comma-separated pattern list (PARLEY_WEBHOOK_ALLOW); unset or blank gives the default policy. Throws WebhookAllowError. */
export function webhookUrlPolicy(spec?: string | readonly string[] | null): WebhookUrlPolicy {
  const list = (spec === undefined || spec === null ? [] : typeof spec === 'string' ? spec.split(',') : [...spec]).map((s) => s.trim()).filter((s) => s !== '');
  const patterns = list.map(parsePattern);
  const parse = (url: string): URL | string => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return 'it is not a URL';
    }
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : `scheme ${u.protocol.slice(0, -1)} is not http(s)`;
  };
  if (patterns.length > 0) {
    return {
      patterns: list,
      refusal(url) {
        const u = parse(url);
        if (typeof u === 'string') return u;
        // The patterns themselves are the operator's: not echoed to the caller.
        return patterns.some((p) => matches(p, u)) ? undefined : 'it matches no pattern of PARLEY_WEBHOOK_ALLOW';
      },
      resolveToCheck: () => undefined,
    };
  }
  return {
    patterns: [],
    refusal(url) {
      const u = parse(url);
      if (typeof u === 'string') return u;
      if (u.protocol !== 'https:') return 'only https URLs are allowed while PARLEY_WEBHOOK_ALLOW is unset';
      const host = normalHost(u.hostname);
      if (host === 'localhost' || host.endsWith('.localhost')) return `host ${host} is local`;
      const ip = host.startsWith('[') ? host.slice(1, -1) : host;
      if (isIP(ip) !== 0) {
        const kind = nonPublicAddress(ip);
        if (kind) return `host ${host} is ${kind}`;
      }
      return undefined;
    },
    resolveToCheck(url) {
      const u = parse(url);
      if (typeof u === 'string') return undefined;
      const host = normalHost(u.hostname);
      return host.startsWith('[') || isIP(host) !== 0 ? undefined : host;
    },
  };
}

// ---------------------------------------------------------------------------
// Addresses
// ---------------------------------------------------------------------------

const V4_RANGES: readonly [string, number, string][] = [
  ['0.0.0.0', 8, 'an unspecified address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address (cloud metadata lives there)'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'a reserved address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a reserved address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
];

function v4(ip: string): number {
  return ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
}

/** The 8 groups of a valid IPv6 address (a dotted IPv4 tail and a zone included). */
function v6Groups(ip: string): number[] {
  let s = ip.toLowerCase().replace(/%.*$/, '');
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const n = v4(dotted[1]!);
    tail.push(n >>> 16, n & 0xffff);
    s = s.slice(0, -dotted[1]!.length);
    if (!s.endsWith('::')) s = s.slice(0, -1);
  }
  const parts = (x: string) => (x === '' ? [] : x.split(':').map((g) => parseInt(g, 16)));
  if (!s.includes('::')) return [...parts(s), ...tail];
  const [h, r] = s.split('::') as [string, string];
  const head = parts(h);
  const rest = parts(r);
  return [...head, ...new Array<number>(8 - tail.length - head.length - rest.length).fill(0), ...rest, ...tail];
}

/** What kind of non-public address `ip` is, or undefined for a public unicast address. */
export function nonPublicAddress(ip: string): string | undefined {
  const family = isIP(ip.replace(/%.*$/, ''));
  if (family === 4) {
    const n = v4(ip);
    for (const [base, bits, kind] of V4_RANGES) {
      const size = 2 ** (32 - bits);
      if (Math.floor(n / size) === Math.floor(v4(base) / size)) return kind;
    }
    if (n === 0xffffffff) return 'a broadcast address';
    return undefined;
  }
  if (family !== 6) return 'not an IP address';
  const g = v6Groups(ip);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'an unspecified address';
  if (zeros(0, 7) && g[7] === 1) return 'a loopback address';
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, deprecated), 64:ff9b::a.b.c.d (NAT64): the IPv4 address decides.
  const embedded = `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  if (zeros(0, 5) && (g[5] === 0xffff || g[5] === 0)) return nonPublicAddress(embedded);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return nonPublicAddress(embedded);
  if ((g[0]! & 0xfe00) === 0xfc00) return 'a private (unique local) address';
  if ((g[0]! & 0xffc0) === 0xfe80) return 'a link-local address';
  if ((g[0]! & 0xffc0) === 0xfec0) return 'a site-local address';
  if ((g[0]! & 0xff00) === 0xff00) return 'a multicast address';
  return undefined;
}
