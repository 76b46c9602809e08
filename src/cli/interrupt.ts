/**
 * Ctrl-C for the long commands: the first SIGINT asks the command to stop at the next safe point
 * (its state saved), `abortOnFirst` also aborts the request in flight (a harvest page not yet
 * written); a second SIGINT aborts whatever is in flight.
 */
export interface InterruptWatch {
  readonly signal: AbortSignal;
  requested(): boolean;
  dispose(): void;
}

export function watchInterrupt(abortOnFirst: boolean, onFirst: () => void): InterruptWatch {
  const controller = new AbortController();
  let count = 0;
  const handler = (): void => {
    count += 1;
    if (count === 1) onFirst();
    if (abortOnFirst || count > 1) controller.abort();
  };
  process.on('SIGINT', handler);
  return {
    signal: controller.signal,
    requested: () => count > 0,
    dispose: () => { process.off('SIGINT', handler); },
  };
}
