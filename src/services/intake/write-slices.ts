/**
 * Pipelined writes, shared by Basic Publish and inbound distribution: a large batch of documents
 * that replace nothing is checked and written in slices, the store writing one slice while the
 * node checks the next (the store is another process, or another server), so a batch waits for
 * the store's writes plus one slice's checks instead of the checks of the whole batch.
 * Replacements keep one write: their tombstones follow it (replacement-writes.ts).
 */

/** A batch this large is written in slices. */
const PIPELINE_MIN = 200;
const PIPELINE_SLICES = 4;

/** Documents per slice: the whole batch when it is small, or when `oneWrite` (replacements, a dry run). */
export function sliceSize(count: number, oneWrite: boolean): number {
  return oneWrite || count < PIPELINE_MIN ? count : Math.ceil(count / PIPELINE_SLICES);
}

/** Slice writes started one after another, awaited together. */
export class SliceWrites<T> {
  private readonly writes: Promise<{ value: T } | { error: unknown }>[] = [];

  /** Settled here, awaited in `all`: a failed write is never an unhandled rejection. */
  add(write: Promise<T>): void {
    this.writes.push(write.then((value) => ({ value }), (error: unknown) => ({ error })));
  }

  /** Every slice's result in order; the first store error fails the batch (the others are stored). */
  async all(): Promise<T[]> {
    const settled = await Promise.all(this.writes);
    const failed = settled.find((write): write is { error: unknown } => 'error' in write);
    if (failed) throw failed.error;
    return settled.map((write) => (write as { value: T }).value);
  }
}

/** Lets a slice's write request leave before the next slice's checks take the event loop. */
export const letWriteLeave = (): Promise<void> => new Promise((resolve) => { setImmediate(resolve); });
