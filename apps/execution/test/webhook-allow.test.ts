import { describe, expect, it } from 'vitest';
import { WebhookAllowError, nonPublicAddress, webhookUrlPolicy } from '../src/tasks/webhook-allow';

// The webhook URL policy (PARLEY_WEBHOOK_ALLOW): SSRF protection for task
// webhooks. Pure: the service and the deliverer both ask it.

describe('the default policy (PARLEY_WEBHOOK_ALLOW unset)', () => {
  const policy = webhookUrlPolicy();
  const cases: [string, string | null][] = [
    // allowed: https to a public host
    ['https://hooks.example.com/parley', null],
    ['https://hooks.example.com:8443/x?y=1#z', null],
    ['https://8.8.8.8/hook', null],
    ['https://[2606:4700::1111]/hook', null],
    ['https://172.32.0.1/', null],
    ['https://user:pw@hooks.example.com/', null],
    // http, whatever the host
    ['http://hooks.example.com/parley', 'only https'],
    ['http://127.0.0.1:8080/hook', 'only https'],
    // cloud metadata and link-local
    ['https://169.254.169.254/latest/meta-data/', 'link-local'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://[::ffff:169.254.169.254]/', 'link-local'],
    // loopback, also in the forms a URL parser turns into 127.0.0.1
    ['https://127.0.0.1/', 'loopback'],
    ['https://127.1.2.3:9443/', 'loopback'],
    ['https://2130706433/', 'loopback'],
    ['https://0x7f.0.0.1/', 'loopback'],
    ['https://[::1]/', 'loopback'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
    ['https://localhost/', 'local'],
    ['https://LOCALHOST./', 'local'],
    ['https://api.localhost/', 'local'],
    // private: RFC 1918, unique local, carrier-grade NAT
    ['https://10.0.0.5/', 'private'],
    ['https://10.255.255.255/', 'private'],
    ['https://172.16.0.1/', 'private'],
    ['https://172.31.255.254/', 'private'],
    ['https://192.168.1.10/', 'private'],
    ['https://[fc00::1]/', 'private'],
    ['https://[fd12:3456::1]/', 'private'],
    ['https://100.100.100.200/', 'shared'],
    // unspecified, multicast, reserved
    ['https://0.0.0.0/', 'unspecified'],
    ['https://[::]/', 'unspecified'],
    ['https://224.0.0.1/', 'multicast'],
    ['https://255.255.255.255/', 'reserved'],
    // not http(s) at all
    ['ftp://hooks.example.com/', 'not http(s)'],
    ['file:///etc/passwd', 'not http(s)'],
    ['not a url', 'not a URL'],
  ];
  for (const [url, why] of cases) {
    it(`${why === null ? 'allows' : 'refuses'} ${url}`, () => {
      const refusal = policy.refusal(url);
      if (why === null) expect(refusal).toBeUndefined();
      else expect(refusal).toContain(why);
    });
  }

  it('asks for a name to be resolved (and checked at delivery), not for an address', () => {
    expect(policy.resolveToCheck('https://Hooks.Example.com./x')).toBe('hooks.example.com');
    expect(policy.resolveToCheck('https://8.8.8.8/x')).toBeUndefined();
    expect(policy.resolveToCheck('https://[2606:4700::1111]/x')).toBeUndefined();
    expect(policy.patterns).toEqual([]);
    expect(webhookUrlPolicy('  ,  ').refusal('http://127.0.0.1/')).toContain('only https');
  });
});

describe('explicit patterns', () => {
  const policy = webhookUrlPolicy('https://*.example.com, https://hooks.acme.io:8443/parley/, http://127.0.0.1:*, https://api.partner.io/v1, http://[::1]:9000');
  const cases: [string, boolean][] = [
    // a *. wildcard: any name below the domain, not the domain itself, not a look-alike
    ['https://a.example.com/', true],
    ['https://a.b.example.com/deep/path', true],
    ['https://A.EXAMPLE.COM./x', true],
    ['https://example.com/', false],
    ['https://evilexample.com/', false],
    ['https://a.example.com.evil.io/', false],
    ['https://a.example.com@evil.io/', false],
    ['http://a.example.com/', false],
    // no port in the pattern: the scheme's default only
    ['https://a.example.com:443/', true],
    ['https://a.example.com:8443/', false],
    // a port and a path prefix ending in /
    ['https://hooks.acme.io:8443/parley/', true],
    ['https://hooks.acme.io:8443/parley/tasks/1', true],
    ['https://hooks.acme.io:8443/parley', false],
    ['https://hooks.acme.io:8443/parleyx', false],
    ['https://hooks.acme.io:8443/parley/../admin', false],
    ['https://hooks.acme.io:8443/parley/%2e%2e/admin', false],
    ['https://hooks.acme.io/parley/x', false],
    ['https://hooks.acme.io:9443/parley/x', false],
    // a path prefix without the trailing /: whole segments
    ['https://api.partner.io/v1', true],
    ['https://api.partner.io/v1/hooks', true],
    ['https://api.partner.io/v10', false],
    ['https://api.partner.io/v2', false],
    // any port
    ['http://127.0.0.1:1/', true],
    ['http://127.0.0.1:65535/hook', true],
    ['http://127.0.0.1/hook', true],
    ['https://127.0.0.1:8443/', false],
    ['http://127.0.0.2:80/', false],
    ['http://localhost:8080/', false],
    // an IPv6 literal with a port
    ['http://[::1]:9000/h', true],
    ['http://[0:0:0:0:0:0:0:1]:9000/h', true],
    ['http://[::1]:9001/h', false],
    // explicit patterns replace the default: a public https host not listed is refused
    ['https://hooks.elsewhere.com/', false],
  ];
  for (const [url, allowed] of cases) {
    it(`${allowed ? 'allows' : 'refuses'} ${url}`, () => {
      const refusal = policy.refusal(url);
      if (allowed) expect(refusal).toBeUndefined();
      else expect(refusal).toMatch(/matches no pattern of PARLEY_WEBHOOK_ALLOW/);
    });
  }

  it('* alone matches every host, private ones included (development)', () => {
    const any = webhookUrlPolicy(['https://*']);
    expect(any.refusal('https://10.0.0.1/')).toBeUndefined();
    expect(any.refusal('https://hooks.example.com/')).toBeUndefined();
    expect(any.refusal('https://hooks.example.com:8443/')).toMatch(/no pattern/);
    expect(any.refusal('http://hooks.example.com/')).toMatch(/no pattern/);
  });

  it('never resolves names: the listed hosts are trusted as named', () => {
    expect(policy.resolveToCheck('https://a.example.com/')).toBeUndefined();
    expect(policy.patterns).toHaveLength(5);
  });

  it('refuses a malformed pattern when the policy is made', () => {
    for (const bad of ['ftp://x.io', '*.example.com', 'https://', 'https://**.x.io', 'https://a.*.x.io', 'https://*.10.0.0', 'https://x.io:0', 'https://x.io:70000', 'https://x.io/p?q=1', 'https://x.io/#f', 'https://user@x.io', 'https://x.io:http']) {
      expect(() => webhookUrlPolicy(bad), bad).toThrow(WebhookAllowError);
    }
  });
});

describe('nonPublicAddress (also applied to what a name resolves to)', () => {
  const cases: [string, string | undefined][] = [
    ['93.184.216.34', undefined],
    ['2606:2800:220:1:248:1893:25c8:1946', undefined],
    ['169.254.169.254', 'link-local'],
    ['fd00:ec2::254', 'private'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:a01:203', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['::127.0.0.1', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['127.0.0.53', 'loopback'],
    ['0.1.2.3', 'unspecified'],
  ];
  for (const [ip, kind] of cases) {
    it(`${ip}: ${kind ?? 'public'}`, () => {
      if (kind === undefined) expect(nonPublicAddress(ip)).toBeUndefined();
      else expect(nonPublicAddress(ip)).toContain(kind);
    });
  }
});
