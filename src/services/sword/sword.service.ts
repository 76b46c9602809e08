/**
 * SWORD 1.3 deposit onto the node (spec "SWORD publish", "Authentication" 2, 3 and 6): who may
 * deposit, the service document's data, and a deposit through the Basic Publish pipeline.
 *
 * Mediation rule (the spec is silent): credentials are always required (SWORD 1.3 profile
 * section 1.4). Without X-On-Behalf-Of the authenticated account deposits and must hold the
 * `publisher` role. With X-On-Behalf-Of naming another account, the authenticated account must
 * be a `network_admin` (else 412 MediationNotAllowed) and the named account must exist, be
 * enabled and hold `publisher` (else 401 TargetOwnerUnknown); the deposit is then published as
 * the named account (its `submitter`).
 */
import { randomUUID } from 'node:crypto';
import type { Account, AccountRepository } from '../../storage/account-repository.js';
import type { NodeRepository } from '../../storage/node-repository.js';
import { AppError, SpecRefusal, missingRole } from '../../errors/app-error.js';
import type { PublishService } from '../publish/publish.service.js';
import { credentialSchemes, numberSetting, type ServiceSettings } from '../service-settings.js';
import { SERVICE_CATALOGUE } from '../../domain/service-descriptions.js';
import type { Clock } from '../../domain/timestamps.js';
import type { ServiceDocumentData } from '../../protocol/sword/service-document.js';
import type { ReceiptData } from '../../protocol/sword/deposit-receipt.js';
import type { DepositHeaders } from './deposit-request.js';
import { SwordError } from './sword-error.js';
import type { CredentialSchemes } from '../../domain/service-descriptions.js';

export interface Depositor {
  /** The authenticated account. */
  account: Account;
  /** The account the deposit is published as: the X-On-Behalf-Of account when mediated. */
  owner: Account;
  mediated: boolean;
}

export interface DepositOutcome { docId: string; location?: string; receipt: ReceiptData }

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

const SWORD_VERSION = SERVICE_CATALOGUE.find((entry) => entry.key === 'sword')?.service_version ?? '0.10.0';

/** The `atom:generator` of receipts and error documents (also while the node is starting). */
export function swordGenerator(publicUrl: string): ReceiptData['generator'] {
  return { uri: `${publicUrl}/swordservice`, version: SWORD_VERSION, name: 'Learning Registry node' };
}

export class SwordService {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly nodes: NodeRepository,
    private readonly settings: ServiceSettings,
    private readonly publisher: PublishService,
    private readonly publicUrl: string,
    private readonly clock: Clock,
  ) {}

  get generator(): ReceiptData['generator'] {
    return swordGenerator(this.publicUrl);
  }

  /**
   * A 503 when the SWORD service is not active on this node (checked before credentials); else the
   * credentials its description lists (every SWORD request names a depositor, so some are always
   * needed: a description listing none takes any).
   */
  async active(): Promise<CredentialSchemes> {
    return credentialSchemes(await this.settings.of('sword')) || { basic: true, oauth: true };
  }

  /** The mediation rule of this file's header. */
  async depositor(account: Account, onBehalfOf: string): Promise<Depositor> {
    const target = onBehalfOf.trim();
    if (target === '' || target === account.name) {
      // Authenticated, but not a publisher: a 403 naming the role, not a request for credentials it already sent.
      if (!account.roles.includes('publisher')) throw missingRole(account, 'publisher');
      return { account, owner: account, mediated: false };
    }
    if (!account.roles.includes('network_admin')) {
      throw new SwordError('MediationNotAllowed', `account ${account.name} may not deposit on behalf of another account (a network_admin account may)`);
    }
    const owner = await this.accounts.find(target);
    if (!owner || owner.disabled || !owner.roles.includes('publisher')) {
      throw new SwordError('TargetOwnerUnknown', 'the X-On-Behalf-Of account is unknown to this node or may not publish');
    }
    return { account, owner, mediated: true };
  }

  /** Spec "SWORD publish": the collection is listed only for a user who may deposit. */
  async serviceDocument(account: Account, onBehalfOf: string): Promise<ServiceDocumentData> {
    const mayDeposit = await this.depositor(account, onBehalfOf).then(() => true, (error: unknown) => {
      if (error instanceof AppError && error.status < 500) return false; // refused: no collection to list
      throw error;
    });
    const [node, community, sword, limit] = await Promise.all([this.nodes.nodeDescription(), this.nodes.communityDescription(), this.settings.of('sword'), this.sizeLimit()]);
    const workspaceTitle = text(community?.community_name) ?? text(community?.community_id) ?? '';
    // A deposit over it is 413 MaxUploadSizeExceeded (deposit-request.ts): the client is told the limit.
    const maxUpload = limit ? { maxUploadKb: Math.floor(limit / 1024) } : {};
    if (!mayDeposit) return { workspaceTitle, ...maxUpload };
    const abstract = text(node?.node_description);
    const policy = text(sword.service_data?.collection_policy);
    return {
      workspaceTitle,
      ...maxUpload,
      collection: {
        href: `${this.publicUrl}/swordpub`,
        title: text(node?.node_name) ?? text(node?.node_id) ?? '',
        ...(abstract ? { abstract } : {}),
        ...(policy ? { policy } : {}),
      },
    };
  }

  /** publish `msg_size_limit` bounds a deposit's body (413 MaxUploadSizeExceeded past it). */
  async sizeLimit(): Promise<number | undefined> {
    return numberSetting((await this.settings.of('publish')).service_data, 'msg_size_limit');
  }

  /** One document through the Basic Publish pipeline; X-No-Op runs it as a dry run. */
  async deposit(document: unknown, depositor: Depositor, headers: DepositHeaders, bytes: number): Promise<DepositOutcome> {
    const docLimit = numberSetting((await this.settings.of('publish')).service_data, 'doc_limit');
    let response;
    try {
      response = await this.publisher.publish({ documents: [document] }, depositor.owner, docLimit, { dryRun: headers.noOp });
    } catch (error) {
      if (error instanceof SpecRefusal && error.code === 'invalid_request') throw new SwordError('ErrorBadRequest', error.message);
      throw error;
    }
    const result = response.document_results[0];
    // The one document over the node's max_document_size is a deposit too large for this server
    // (SWORD 1.3 profile: 413 MaxUploadSizeExceeded), as one over msg_size_limit is.
    if (result?.OK === false && result.error === 'too large') throw new SwordError('MaxUploadSizeExceeded', 'the document is larger than the node policy\'s max_document_size (stated in the SWORD service_data)');
    if (!result?.OK || !result.doc_ID) throw new SwordError('ErrorBadRequest', result?.error ?? 'publish failed');
    const docId = result.doc_ID;
    const obtainUrl = `${this.publicUrl}/obtain?request_ID=${encodeURIComponent(docId)}&by_doc_ID=T`;
    const receipt: ReceiptData = {
      id: headers.noOp ? `urn:uuid:${randomUUID()}` : obtainUrl,
      docId,
      updated: this.clock().toISOString(),
      author: depositor.account.name,
      ...(depositor.mediated ? { onBehalfOf: depositor.owner.name } : {}),
      ...(headers.noOp ? {} : { obtainUrl }),
      generator: this.generator,
      treatment: headers.noOp
        ? 'No-op (X-No-Op): the document passed every check of the Basic Publish service; nothing was stored.'
        : 'Published through the Basic Publish service: validated, filtered, checked against the node policy, stored as a resource data description document and distributed by the node.',
      noOp: headers.noOp,
      ...(headers.verbose ? { verboseDescription: this.verbose(depositor, headers, bytes, docId) } : {}),
      ...(headers.userAgent ? { userAgent: headers.userAgent } : {}),
    };
    return { docId, ...(headers.noOp ? {} : { location: obtainUrl }), receipt };
  }

  private verbose(depositor: Depositor, headers: DepositHeaders, bytes: number, docId: string): string {
    return [
      `Authenticated as ${depositor.account.name}${depositor.mediated ? `, depositing on behalf of ${depositor.owner.name} (mediated deposit)` : ''}.`,
      `Received ${bytes} bytes of application/json${headers.filename ? ` (filename ${headers.filename})` : ''}; Content-MD5 ${headers.md5 ? 'verified' : 'not supplied'}.`,
      'Checks: validation, filters, terms of service, submitter, signature and size, as for POST /publish.',
      headers.noOp ? `No-op: accepted as doc_ID ${docId}; nothing was stored.` : `Stored as doc_ID ${docId}, owned by account ${depositor.owner.name}.`,
    ].join('\n');
  }
}
