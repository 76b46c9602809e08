/** At most `limit` tasks at once; the others wait their turn in order. */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** How many tasks wait for a turn. */
  get queued(): number {
    return this.waiting.length;
  }

  /** How many tasks hold a turn. */
  get active(): number {
    return this.running;
  }

  /**
   * `work` in its turn. With `bound`, a task still waiting after `maxWaitMs` leaves the queue and
   * rejects with `timedOut()`, its work never run.
   */
  async run<T>(work: () => Promise<T>, bound?: { maxWaitMs: number; timedOut: () => Error }): Promise<T> {
    if (this.running >= this.limit) await this.turn(bound);
    else this.running += 1;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next(); else this.running -= 1; // a waiter takes the turn over
    }
  }

  private turn(bound: { maxWaitMs: number; timedOut: () => Error } | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = bound && setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(bound.timedOut());
      }, bound.maxWaitMs);
      const waiter = (): void => { clearTimeout(timer); resolve(); };
      this.waiting.push(waiter);
    });
  }
}
