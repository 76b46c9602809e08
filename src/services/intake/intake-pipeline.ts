/**
 * The write pipeline shared by Basic Publish and inbound distribution (spec "Rules common to
 * publish and inbound distribution"). Each service checks and decides its own documents
 * (IntakeSteps); this holds what the two share, so neither keeps a copy with its own policy:
 * - the stored state a batch is decided against, read once: only the documents named in
 *   `replaces` are read first. A supplied doc_ID that is stored already shows up as a conflict of
 *   the write (no `_rev`: `optimistic`), so a batch of new documents costs one `_bulk_docs`;
 * - a large batch checked and written in slices, each written while the next is checked
 *   (write-slices.ts);
 * - writes that met another version of their doc_ID (a doc_ID stored already, or a version
 *   another request or node process wrote since it was read) read again and decided against what
 *   is stored now until written or refused, so two writes of one document at once both land, one
 *   after the other, as they would in turn. Bounded: each round means another writer won the
 *   previous one.
 */
import type { StoredDoc } from '../../storage/documents.js';
import type { DocumentIntake } from './document-checks.js';
import { storeWithTombstones, type AcceptedWrite, type ReplacementRecheck, type WriteOutcome } from './replacement-writes.js';
import { SliceWrites, letWriteLeave, sliceSize } from './write-slices.js';
import { nodeTimestamp } from '../../domain/timestamps.js';

/** What a batch is decided against. `inBatch`: the doc_IDs decided so far, over every slice. */
export interface IntakePass { state: Map<string, StoredDoc>; now: string; nodeKeyIds: string[]; inBatch: Set<string> }

/** `optimistic`: written without a prior read, so a conflict means the doc_ID is stored already. */
export type IntakeEntry = AcceptedWrite & { optimistic: boolean };

/**
 * Rounds of reading again and deciding again; after a lost round, a random pause of up to 10 ms
 * a round, so that writers of one document spread out instead of meeting again. With one retry,
 * an audit saw 4 of 6 concurrent updates of one document answer "conflict".
 */
const DECIDE_ROUNDS = 10;
const ROUND_BACKOFF_MS = 10;

/** What each service does with its documents; the pipeline calls these in batch order. */
export interface IntakeSteps<Input, Checked, Entry extends IntakeEntry> {
  /** The per-document checks of one slice (they may run concurrently); `offset` is the slice's first index. */
  check(slice: Input[], offset: number): Promise<Checked[]>;
  /** The decisions that depend on the stored state and the order of the batch, in order; updates `pass`. */
  decide(checked: Checked[], pass: IntakePass): Promise<Entry[]>;
  /** One entry decided again against `pass.state` as read now, or undefined when now refused (recorded by the step). */
  decideAgain(entry: Entry, pass: IntakePass): Promise<Entry | undefined>;
  /** Records the outcomes of written entries; returns those that met another version of their doc_ID. */
  record(entries: Entry[], outcomes: WriteOutcome[]): Entry[];
  /** Entries still meeting other versions after the last round. */
  giveUp(entries: Entry[], rounds: number): void;
}

export interface IntakeBatch<Input> {
  inputs: Input[];
  /** The doc_IDs the batch's documents name in `replaces`: read before deciding. */
  replaced: string[];
  /** The node's own key ids (for the replacement rules). */
  nodeKeyIds: Promise<string[]>;
  recheck: (nodeKeyIds: string[]) => ReplacementRecheck;
  /** Nothing is written (a dry run); the decided entries are returned. */
  dryRun?: boolean;
}

export class IntakePipeline {
  constructor(private readonly intake: DocumentIntake) {}

  /** Runs the batch through `steps`; returns the pass and every entry decided in the first round. */
  async run<Input, Checked, Entry extends IntakeEntry>(batch: IntakeBatch<Input>, steps: IntakeSteps<Input, Checked, Entry>): Promise<{ pass: IntakePass; decided: Entry[] } | undefined> {
    const { inputs, replaced, dryRun = false } = batch;
    const stateRead = Promise.all([this.intake.store.getMany(replaced), batch.nodeKeyIds]);
    // Awaited after the first slice's checks: if those fail first, its own failure must not be
    // left unhandled (Node ends the process on an unhandled rejection).
    stateRead.catch(() => undefined);
    const size = sliceSize(inputs.length, dryRun || replaced.length > 0);
    const writes = new SliceWrites<Entry[]>();
    const decided: Entry[] = [];
    let pass: IntakePass | undefined;
    let recheck: ReplacementRecheck | undefined;
    for (let start = 0; start < inputs.length; start += size) {
      const checked = await steps.check(inputs.slice(start, start + size), start);
      if (!pass) {
        const [state, nodeKeyIds] = await stateRead;
        pass = { state, now: nodeTimestamp(this.intake.clock()), nodeKeyIds, inBatch: new Set() };
        recheck = batch.recheck(nodeKeyIds);
      }
      const entries = await steps.decide(checked, pass);
      decided.push(...entries);
      if (dryRun || entries.length === 0) continue;
      writes.add(this.write(entries, pass, recheck as ReplacementRecheck).then((outcomes) => steps.record(entries, outcomes)));
      if (start + size < inputs.length) await letWriteLeave();
    }
    if (!pass) return undefined;
    if (!dryRun) await this.decideAgain((await writes.all()).flat(), pass, recheck as ReplacementRecheck, steps);
    return { pass, decided };
  }

  private write(entries: IntakeEntry[], pass: IntakePass, recheck: ReplacementRecheck): Promise<WriteOutcome[]> {
    return storeWithTombstones(this.intake.store, entries, pass.state, pass.now, recheck, this.intake.logger);
  }

  /** The writes that met another version of their doc_ID, read and decided again (module comment). */
  private async decideAgain<Input, Checked, Entry extends IntakeEntry>(conflicts: Entry[], pass: IntakePass, recheck: ReplacementRecheck, steps: IntakeSteps<Input, Checked, Entry>): Promise<void> {
    let pending = conflicts;
    for (let round = 1; pending.length > 0; round += 1) {
      if (round > DECIDE_ROUNDS) { steps.giveUp(pending, DECIDE_ROUNDS); return; }
      if (round > 1) await new Promise((resolve) => setTimeout(resolve, Math.random() * ROUND_BACKOFF_MS * round));
      const found = await this.intake.store.getMany(pending.map((entry) => entry.doc._id));
      const retry: Entry[] = [];
      for (const entry of pending) {
        const existing = found.get(entry.doc._id);
        // Gone since (deleted): written as new, as a first write of the doc_ID is.
        if (existing) pass.state.set(entry.doc._id, existing);
        else pass.state.delete(entry.doc._id);
        const again = await steps.decideAgain(entry, pass);
        if (again) retry.push(again);
      }
      pending = retry.length === 0 ? [] : steps.record(retry, await this.write(retry, pass, recheck));
    }
  }
}
