/**
 * src/services/distribute/lease-renewal.ts: a held lease is renewed every third of its period
 * until stopped; a renewal that finds the lease taken over stops renewing and says so once; a
 * renewal that fails is logged and the next one tries again.
 */
import { expect } from 'chai';
import pino from 'pino';
import { renewWhileHeld } from '../../../src/services/distribute/lease-renewal.js';
import type { LeaseRepository } from '../../../src/storage/lease-repository.js';

const TTL_MS = 90;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A lease repository whose renewals answer `answers` in turn (then the last one), counted. */
function leasesAnswering(answers: (boolean | Error)[]): { leases: LeaseRepository; renewals: () => number } {
  let count = 0;
  const leases = {
    renew: async (): Promise<boolean> => {
      const answer = answers[Math.min(count, answers.length - 1)];
      count += 1;
      if (answer instanceof Error) throw answer;
      return answer as boolean;
    },
  } as unknown as LeaseRepository;
  return { leases, renewals: () => count };
}

describe('a held lease renewed in the background (lease-renewal)', () => {
  const logger = pino({ level: 'silent' });

  it('renews every third of the period until stopped', async () => {
    const { leases, renewals } = leasesAnswering([true]);
    const stop = renewWhileHeld({ leases, name: 'x', holder: 'me', ttlMs: TTL_MS }, logger, () => { throw new Error('not lost'); });
    await sleep(TTL_MS * 2 + TTL_MS / 6);
    stop();
    const seen = renewals();
    expect(seen).to.be.within(4, 7);
    await sleep(TTL_MS);
    expect(renewals()).to.equal(seen);
  });

  it('stops renewing and tells once when another process holds the lease; a failed renewal is tried again', async () => {
    const { leases, renewals } = leasesAnswering([new Error('store down'), true, false]);
    let lost = 0;
    renewWhileHeld({ leases, name: 'x', holder: 'me', ttlMs: TTL_MS }, logger, () => { lost += 1; });
    await sleep(TTL_MS * 2);
    expect(lost).to.equal(1);
    expect(renewals()).to.equal(3);
  });
});
