/**
 * One error class per OAI-PMH 2.0 error code (OAI-PMH 2.0 §3.6; spec "Errors"). They are
 * rendered as <error code="..."> with HTTP 200 by the OAI-PMH routes, never by the JSON exit.
 */
import type { OaiErrorCode } from '../../protocol/oai-pmh/response.js';

export abstract class OaiError extends Error {
  abstract readonly code: OaiErrorCode;
  /** badVerb and badArgument answers carry no request attributes (OAI-PMH 2.0 §3.2). */
  get echoesArguments(): boolean {
    return this.code !== 'badVerb' && this.code !== 'badArgument';
  }
}

export class BadVerb extends OaiError { readonly code = 'badVerb'; }
export class BadArgument extends OaiError { readonly code = 'badArgument'; }
export class BadResumptionToken extends OaiError { readonly code = 'badResumptionToken'; }
export class CannotDisseminateFormat extends OaiError { readonly code = 'cannotDisseminateFormat'; }
export class IdDoesNotExist extends OaiError { readonly code = 'idDoesNotExist'; }
export class NoRecordsMatch extends OaiError { readonly code = 'noRecordsMatch'; }
export class NoMetadataFormats extends OaiError { readonly code = 'noMetadataFormats'; }
export class NoSetHierarchy extends OaiError { readonly code = 'noSetHierarchy'; }
