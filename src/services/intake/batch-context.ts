/**
 * What publish and inbound distribution check a batch against, read and built one way for both:
 * the node description's policy (read through DocumentChecks.policyOf, which checks it), the
 * node filter, the node's public key and key location, and the batch's key lookups. Read at each
 * batch, so a policy or filter edited in the node database applies at once; the node's key pair
 * is created once and never changes, so each process reads it once.
 */
import { notBootstrapped } from '../../errors/app-error.js';
import type { NodeKeys } from '../../storage/node-repository.js';
import type { StoredDoc } from '../../storage/documents.js';
import type { FilterDescription } from '../../domain/filters.js';
import type { CheckContext, DocumentIntake } from './document-checks.js';

/** The node description, the filter description and the node's key pair, as a batch reads them. */
export type NodeDocuments = [StoredDoc | undefined, StoredDoc | undefined, NodeKeys | undefined];

export interface BatchContext { context: CheckContext; node: StoredDoc; keys: NodeKeys }

export class BatchContextReader {
  private keys: NodeKeys | undefined;

  constructor(private readonly intake: DocumentIntake) {}

  /** The node documents of a batch. A route may start this read early, beside its own, and pass it in. */
  async read(): Promise<NodeDocuments> {
    const [[node, filter], keys] = await Promise.all([this.intake.nodes.nodeAndFilterDescriptions(), this.nodeKeys()]);
    return [node, filter, keys];
  }

  private async nodeKeys(): Promise<NodeKeys | undefined> {
    this.keys ??= await this.intake.nodes.nodeKeys();
    return this.keys;
  }

  /** The context `documents` are checked in; `accountSubmitter`: the publishing account's submitter (publish only). */
  contextOf([node, filter, keys]: NodeDocuments, mode: CheckContext['mode'], documents: unknown[], accountSubmitter?: string): BatchContext {
    if (!node || !keys) throw notBootstrapped(node ? 'the node key pair' : 'the node description');
    const policy = this.intake.checks.policyOf(node.node_policy);
    const context: CheckContext = {
      policy, filter: filter as FilterDescription | undefined, accountSubmitter,
      nodePublicKey: keys.publicKey, nodeKeyLocation: `${this.intake.publicUrl}/pubkey`, mode,
    };
    // One key lookup for the batch: each key location fetched once however many documents name
    // it, the cache read in one request (an audit saw 260 fetches of one dead location in one
    // pass over parked documents when each document fetched its signer's key itself).
    context.keyBatch = this.intake.checks.keyBatch(documents, policy);
    return { context, node, keys };
  }
}
