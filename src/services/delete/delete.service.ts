/**
 * Basic Delete (spec "Basic Delete (deprecated)"): per-ID results aligned with request_IDs; the
 * service description's delete_action decides what happens, consistently with the node's
 * deleted_data_policy ("Deletion MUST be consistent with the resource data persistence policy");
 * only the owner may delete (the publishing account, src/domain/ownership.ts).
 *
 * - ignore: acknowledged, nothing changes.
 * - mark: the document gets `node_deleted` (the time) and a new node_timestamp, so incremental
 *   harvesters see the change; every access service stops returning it.
 * - delete, purge, under `persistent`: the document's content is removed and a stub stays
 *   (src/domain/deletion-stub.ts), marked as above, so both harvests report the record as
 *   deleted from then on, as Identify's `deletedRecord` `persistent` promises (OAI-PMH 2.0
 *   §2.5.1). Removing the document lost the record from every list.
 * - delete, purge, under `transient` or `no`: the document is removed from CouchDB (a deletion
 *   stub of CouchDB's own remains until compaction, which is CouchDB's "removal triggered, may
 *   run later"); `transient` permits a repository to forget deletions, `no` never reports them.
 */
import type { Account } from '../../storage/account-repository.js';
import type { ResourceRepository } from '../../storage/resource-repository.js';
import type { StoredDoc } from '../../storage/documents.js';
import { nodeTimestamp, type Clock } from '../../domain/timestamps.js';
import type { OwnerPseudonyms } from '../../domain/ownership.js';
import type { DocumentResult, PublishResponse } from '../publish/publish.service.js';
import { isRecord } from '../../domain/is-record.js';
import { AppError, specRefusal } from '../../errors/app-error.js';
import { isDeleted, resourceState } from '../../domain/resource-document.js';
import { deletionStub } from '../../domain/deletion-stub.js';
import type { DeletedDataPolicy } from '../../domain/node-configuration.js';

const OWNER_ONLY = 'only the owner of a document may delete it';

const DELETE_ACTIONS = ['ignore', 'mark', 'delete', 'purge'] as const;
export type DeleteAction = typeof DELETE_ACTIONS[number];

/**
 * The delete_action of the service description's service_data (default `mark`). CONFIG is
 * validated at start-up, but an operator may edit the description in CouchDB: an unknown action
 * answered OK and deleted nothing, where it now fails the request naming it.
 */
export function deleteActionOf(serviceData: unknown): DeleteAction {
  const action = isRecord(serviceData) ? serviceData.delete_action ?? 'mark' : 'mark';
  if (typeof action === 'string' && (DELETE_ACTIONS as readonly string[]).includes(action)) return action as DeleteAction;
  throw new AppError(500, 'misconfigured', `the delete service description's delete_action ${JSON.stringify(action)} is not one of ${DELETE_ACTIONS.join(', ')}`, true);
}

/** What a delete request is decided by: the delete description's action and the node's deleted-data policy (node_policy). */
export interface DeleteRules { action: DeleteAction; deletedDataPolicy: DeletedDataPolicy }

/** The write that deletes `doc` at `now` (undefined: nothing to write). */
function deletionWrite(doc: StoredDoc, rules: DeleteRules, now: string): StoredDoc | undefined {
  if (rules.action === 'mark') return { ...doc, node_deleted: now, node_timestamp: now };
  if (rules.action === 'ignore') return undefined;
  if (rules.deletedDataPolicy === 'persistent') return deletionStub(doc, now);
  return { _id: doc._id, ...(doc._rev ? { _rev: doc._rev } : {}), _deleted: true };
}

export class DeleteService {
  constructor(private readonly store: ResourceRepository, private readonly clock: Clock, private readonly owners: OwnerPseudonyms) {}

  async delete(body: unknown, account: Account | undefined, rules: DeleteRules, docLimit: number | undefined): Promise<PublishResponse> {
    const ids = isRecord(body) ? body.request_IDs : undefined;
    if (!Array.isArray(ids) || ids.length === 0) throw specRefusal('invalid_request', 'missing "request_IDs": a non-empty array of doc_IDs');
    if (!ids.every((id) => typeof id === 'string' && id.length > 0)) throw specRefusal('invalid_request', 'every request_ID must be a non-empty string');
    if (docLimit !== undefined && docLimit > 0 && ids.length > docLimit) throw specRefusal('invalid_request', `too many request_IDs: ${ids.length}, the limit is ${docLimit} (service_data.doc_limit)`);
    const requested = ids as string[];
    const found = await this.store.getMany(requested);
    const now = nodeTimestamp(this.clock());
    const results: DocumentResult[] = [];
    const writes: { index: number; doc: StoredDoc }[] = [];
    const seen = new Set<string>();
    for (const [index, id] of requested.entries()) {
      const doc = found.get(id);
      if (!doc || resourceState(doc) === 'other') { results.push({ doc_ID: id, OK: false, error: 'document doesn\'t exist' }); continue; }
      // Already deleted (spec "Basic Delete"): marked, tombstoned, or a deletion document, as harvest reports them all.
      if (isDeleted(doc) || seen.has(id)) { results.push({ doc_ID: id, OK: false, error: 'document already deleted' }); continue; }
      // No account proves no ownership: a delete service open to anyone (service_authz none) still
      // deletes only for the owner, who is known by the credentials sent (spec "Authentication" 8).
      if (!account || !this.owners.isOwnedBy(doc, account)) { results.push({ doc_ID: id, OK: false, error: account ? OWNER_ONLY : `${OWNER_ONLY}: send the owner's credentials` }); continue; }
      results.push({ doc_ID: id, OK: true });
      const write = deletionWrite(doc, rules, now);
      // Under `ignore` nothing is written, so a repeated ID is not "already deleted" either.
      if (write) { seen.add(id); writes.push({ index, doc: write }); }
    }
    const outcomes = await this.store.bulkWrite(writes.map((w) => w.doc));
    const failed = outcomes.flatMap((outcome, position) => (outcome.ok ? [] : [{ index: (writes[position] as { index: number }).index, id: outcome.id, error: outcome.error }]));
    // A conflict means the document changed between the read and the write: another request,
    // through this or another node process, may have deleted it meanwhile, which is what this
    // request asked for.
    const current = failed.some((failure) => failure.error === 'conflict') ? await this.store.getMany(failed.map((failure) => failure.id)) : new Map<string, StoredDoc>();
    for (const failure of failed) {
      const latest = current.get(failure.id);
      // The answers a request sent after the other would have had.
      if (failure.error === 'conflict' && latest === undefined) results[failure.index] = { doc_ID: failure.id, OK: false, error: 'document doesn\'t exist' };
      else if (failure.error === 'conflict' && latest !== undefined && isDeleted(latest)) results[failure.index] = { doc_ID: failure.id, OK: false, error: 'document already deleted' };
      else results[failure.index] = { doc_ID: failure.id, OK: false, error: failure.error === 'conflict' ? 'delete failed: the document changed meanwhile; send the request again' : `delete failed: ${failure.error}` };
    }
    return { OK: true, document_results: results };
  }
}
