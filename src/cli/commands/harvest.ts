/** lr-node harvest URL --out FILE: a full harvest to JSON Lines, resumable from the last token. */
import fs from 'node:fs';
import { CliError, usageError } from '../errors.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { Interrupted, type RetryPolicy } from '../http-client.js';
import { fetchPage, type HarvestPage, type HarvestQuery } from '../harvest-pages.js';
import { watchInterrupt } from '../interrupt.js';
import { createProgress } from '../progress.js';
import { readState, writeState } from '../state-file.js';

export interface HarvestOptions { query: HarvestQuery; out: string; state?: string; overwrite: boolean; json: boolean; policy: RetryPolicy }

/**
 * The output file holds exactly `bytes` bytes of complete records when the state is written, so a
 * resume cuts off whatever a hard kill left after them and asks the provider for `token`'s page.
 */
interface HarvestState { version: 1; query: HarvestQuery; token: string | null; bytes: number; records: number; total?: number; complete: boolean }

function startingState(options: HarvestOptions, stateFile: string): HarvestState {
  const saved = options.overwrite ? undefined : readState<HarvestState>(stateFile);
  if (saved) {
    if (saved.version !== 1 || JSON.stringify(saved.query) !== JSON.stringify(options.query)) {
      throw usageError(`the state file ${stateFile} belongs to another harvest (URL, --via, --prefix, --from or --until differ): remove it or give --state`);
    }
    const size = fs.existsSync(options.out) ? fs.statSync(options.out).size : -1;
    if (size < saved.bytes) throw usageError(`${options.out} is shorter than its state file says: remove both to start again`);
    if (size > saved.bytes) fs.truncateSync(options.out, saved.bytes);
    return saved;
  }
  if (!options.overwrite && fs.existsSync(options.out) && fs.statSync(options.out).size > 0) {
    throw usageError(`${options.out} exists and has no state file to resume from: remove it or give --overwrite`);
  }
  fs.writeFileSync(options.out, '');
  const fresh: HarvestState = { version: 1, query: options.query, token: null, bytes: 0, records: 0, complete: false };
  writeState(stateFile, fresh);
  return fresh;
}

function append(fd: number, text: string): number {
  const buffer = Buffer.from(text);
  fs.writeSync(fd, buffer);
  fs.fsyncSync(fd);
  return buffer.length;
}

export async function harvest(options: HarvestOptions): Promise<ExitCode> {
  const stateFile = options.state ?? `${options.out}.state.json`;
  const state = startingState(options, stateFile);
  // A rerun of a harvest that ended fetches nothing (its state says the list is complete): it
  // says so rather than "harvested N records" as if it had (a docs audit: a cron job's log).
  const alreadyComplete = state.complete;
  const recordsBefore = state.records;
  const progress = createProgress('harvest', 'records', { json: options.json });
  const interrupt = watchInterrupt(true, () => progress.note('harvest: interrupted, saving'));
  const policy: RetryPolicy = { ...options.policy, signal: interrupt.signal, onRetry: (reason, delay) => progress.note(`harvest: ${reason}, retrying in ${Math.round(delay / 1000)}s`) };
  const fd = fs.openSync(options.out, 'a');
  try {
    progress.update({ done: state.records, ...(state.total ? { total: state.total } : {}) });
    // The next page is requested while this one is written (the provider works meanwhile); the
    // state only ever names pages that are written, so an abandoned prefetch costs nothing.
    let next: Promise<HarvestPage> | undefined = state.complete ? undefined : fetchPage(options.query, state.token, policy);
    while (next) {
      const page = await next;
      next = page.token !== null && !interrupt.requested() ? fetchPage(options.query, page.token, policy) : undefined;
      next?.catch(() => undefined); // awaited at the next turn; a failure must not go unhandled meanwhile
      state.bytes += append(fd, page.records.map((record) => `${JSON.stringify(record)}\n`).join(''));
      state.records += page.records.length;
      state.token = page.token;
      state.complete = page.token === null;
      if (page.total !== undefined) state.total = page.total;
      writeState(stateFile, state);
      progress.update({ done: state.records, ...(state.total ? { total: state.total } : {}) });
      if (!state.complete && interrupt.requested()) throw new Interrupted();
    }
  } catch (error) {
    if (error instanceof Interrupted || interrupt.requested()) {
      throw new CliError(`interrupted after ${state.records} records (state in ${stateFile}): run the same command again to resume`, EXIT.interrupted);
    }
    throw error;
  } finally {
    fs.closeSync(fd);
    progress.stop();
    interrupt.dispose();
  }
  const summary = { OK: true, url: options.query.url, via: options.query.via, records: state.records, fetched: state.records - recordsBefore, out: options.out };
  const text = alreadyComplete
    ? `nothing fetched: ${options.out} holds the ${state.records} records of a harvest that ended (its state file ${stateFile} says so); --overwrite harvests the list again, and another --out with --from the records since\n`
    : `harvested ${state.records} records from ${options.query.url} to ${options.out}\n`;
  process.stdout.write(options.json ? `${JSON.stringify(summary)}\n` : text);
  return EXIT.ok;
}
