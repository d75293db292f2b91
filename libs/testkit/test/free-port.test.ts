import { describe, expect, it } from 'vitest';
import { freePort } from '../src/processes.js';

describe('freePort', () => {
  it('never hands out one port twice in a process, even to calls made at once', async () => {
    // The e2e suites ask for seven or eight ports in one Promise.all; each probe socket is closed before the
    // services bind, so the OS may offer a just-closed port again.
    const ports = [...(await Promise.all(Array.from({ length: 64 }, freePort))), ...(await Promise.all(Array.from({ length: 64 }, freePort)))];
    expect(new Set(ports).size).toBe(ports.length);
    for (const p of ports) expect(p).toBeGreaterThan(0);
  });
});
