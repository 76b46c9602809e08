/**
 * Whether a start without CONFIG may apply the CONFIG kept in the node database (README
 * "Configuration", "Upgrading, and rolling back"). Versions before 2026-11-26 keep none and leave
 * node_config as it was: started with another CONFIG after a rollback, they write its
 * descriptions, and a later start of this version without CONFIG would overwrite them with the
 * kept one, stale, silently. So each start of this version records in node_config the node
 * documents as it left them, and a start without CONFIG first finds which documents applying the
 * kept CONFIG would change (a dry run of the same seeding, nothing written): one that is not as
 * the record says was written by something else since, and the start is refused.
 *
 * The record is a content digest per document, not its `_rev`: two processes of this version
 * starting at once that write the same document each get a revision, and on a CouchDB cluster
 * one of them is withdrawn (settled-writes.ts), so the `_rev` a process recorded may not be the
 * one that stays; equal content has one digest on either store, whichever write won. Only the
 * documents this start would change are compared: one already as this start would write it
 * (another process of this version, started at the same moment, wrote it with the same CONFIG,
 * PUBLIC_URL and defaults) is not changed, so it is not refused.
 */
import { ConfigError } from '../config/index.js';
import { contentDigest, sameContent, type Reconciled, type StoredDoc } from './documents.js';
import type { NodeDb, NodeRepository } from './node-repository.js';

/** What the seeding of the node documents (bootstrap.ts) writes through. */
export type SeedTarget = Pick<NodeRepository, 'reconcile' | 'deleteNodeDoc' | 'connections'>;

/** A SeedTarget that writes nothing: each document a start would create, rewrite or delete, as stored now. */
class DryRun implements SeedTarget {
  readonly wouldChange = new Map<string, StoredDoc | undefined>();

  constructor(private readonly repo: NodeRepository) {}

  async reconcile(db: NodeDb, id: string, build: (existing: StoredDoc | undefined) => StoredDoc): Promise<Reconciled> {
    const existing = await this.repo.storedDoc(db, id);
    const wanted = build(existing);
    if (existing && sameContent(existing, wanted)) return { doc: existing, replaced: false };
    this.wouldChange.set(id, existing);
    return { doc: { ...wanted, _id: id }, replaced: existing !== undefined };
  }

  async deleteNodeDoc(id: string): Promise<boolean> {
    const existing = await this.repo.storedDoc('node', id);
    if (existing) this.wouldChange.set(id, existing);
    return existing !== undefined;
  }

  connections(): Promise<StoredDoc[]> {
    return this.repo.connections();
  }
}

/**
 * Refuses the start when applying the kept CONFIG would change a node document that is not as
 * the start that last applied it left it (`recorded`: id to content digest; absent: no such
 * document). `seed` runs the seeding against the target it is given.
 */
export async function refuseStaleKeptConfig(repo: NodeRepository, recorded: Record<string, string>, seed: (target: SeedTarget) => Promise<unknown>): Promise<void> {
  const dryRun = new DryRun(repo);
  await seed(dryRun);
  const stale = [...dryRun.wouldChange].filter(([id, stored]) => (stored ? contentDigest(stored) : undefined) !== recorded[id]).map(([id]) => id);
  if (stale.length === 0) return;
  throw new ConfigError('CONFIG', `unset, and node documents that the CONFIG kept in the node database would rewrite were changed since the start that kept it, by a start that keeps no CONFIG (an earlier version's, given another CONFIG after a rollback) or an edit in the store (${stale.join(', ')}): applying the kept CONFIG would undo that silently. Start once with CONFIG=FILE, the configuration the node is to have (lr-node config show prints the kept one), or CONFIG=defaults; later starts without CONFIG keep it`);
}
