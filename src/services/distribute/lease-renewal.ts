/**
 * A held lease renewed in the background, every third of its period (storage/lease-repository.ts),
 * for the two leases a node process holds while it works: a distribution run's (run-lease.ts) and
 * the incoming follower's (follower-lease.ts).
 */
import type { Logger } from 'pino';
import type { LeaseRepository } from '../../storage/lease-repository.js';

export interface HeldLease { leases: LeaseRepository; name: string; holder: string; ttlMs: number }

/**
 * Renews `lease` until the returned function is called. When a renewal finds the lease held by
 * another process (this one's renewals failed for a whole period and it was taken over), renewal
 * stops and `onLost` is called; a renewal that fails is logged, and the next one tries again.
 */
export function renewWhileHeld(lease: HeldLease, logger: Logger, onLost: () => void): () => void {
  let renewing = true;
  const timer = setInterval(() => {
    lease.leases.renew(lease.name, lease.holder, lease.ttlMs).then((held) => {
      if (held || !renewing) return;
      stop();
      onLost();
    }, (error: unknown) => logger.warn({ lease: lease.name, err: (error as Error).message }, 'lease renewal failed'));
  }, lease.ttlMs / 3);
  timer.unref();
  const stop = (): void => {
    renewing = false;
    clearInterval(timer);
  };
  return stop;
}
