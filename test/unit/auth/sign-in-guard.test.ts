/** Rationed password checks and throttled failures (src/services/auth/sign-in-guard.ts). */
import { expect } from 'chai';
import { FAILURE_LIMIT, FAILURE_WINDOW_MS, KDF_CONCURRENCY, KDF_QUEUE, SignInGuard } from '../../../src/services/auth/sign-in-guard.js';
import { AppError } from '../../../src/errors/app-error.js';

const refusal = (run: () => void): AppError | undefined => {
  try { run(); return undefined; } catch (error) { return error as AppError; }
};

describe('sign-in guard', () => {
  it(`refuses a name with 429 after ${FAILURE_LIMIT} failures from one address, until the oldest leaves the window`, () => {
    let now = 1_000_000;
    const guard = new SignInGuard(() => now);
    for (let i = 0; i < FAILURE_LIMIT; i += 1) {
      expect(refusal(() => guard.admit('10.0.0.1', 'alice'))).to.equal(undefined);
      guard.failed('10.0.0.1', 'alice');
      now += 1000;
    }
    const refused = refusal(() => guard.admit('10.0.0.1', 'alice'));
    expect(refused?.status).to.equal(429);
    expect(refused?.retryAfter).to.equal((FAILURE_WINDOW_MS - FAILURE_LIMIT * 1000) / 1000);
    // Another address, or another name from this address, is not held back.
    expect(refusal(() => guard.admit('10.0.0.2', 'alice'))).to.equal(undefined);
    expect(refusal(() => guard.admit('10.0.0.1', 'bob'))).to.equal(undefined);
    now += FAILURE_WINDOW_MS - FAILURE_LIMIT * 1000 + 1;
    expect(refusal(() => guard.admit('10.0.0.1', 'alice'))).to.equal(undefined);
  });

  it('a success clears the failures of that name from that address', () => {
    const guard = new SignInGuard();
    for (let i = 0; i < FAILURE_LIMIT - 1; i += 1) guard.failed('10.0.0.1', 'alice');
    guard.succeeded('10.0.0.1', 'alice');
    guard.failed('10.0.0.1', 'alice');
    expect(refusal(() => guard.admit('10.0.0.1', 'alice'))).to.equal(undefined);
  });

  it(`runs at most ${KDF_CONCURRENCY} checks at once, and refuses a burst past ${KDF_QUEUE} waiting with 503`, async () => {
    const guard = new SignInGuard();
    let running = 0;
    let most = 0;
    const release: (() => void)[] = [];
    const work = (): Promise<boolean> => new Promise((resolve) => {
      running += 1;
      most = Math.max(most, running);
      release.push(() => { running -= 1; resolve(true); });
    });
    const checks = Array.from({ length: KDF_CONCURRENCY + KDF_QUEUE }, () => guard.check(work));
    const overflow = await guard.check(work).then(() => undefined, (error: AppError) => error);
    expect(overflow?.status).to.equal(503);
    expect(overflow?.retryAfter).to.equal(1);
    while (release.length > 0 || running > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      release.shift()?.();
    }
    expect(await Promise.all(checks)).to.have.length(KDF_CONCURRENCY + KDF_QUEUE);
    expect(most).to.equal(KDF_CONCURRENCY);
  });
});
