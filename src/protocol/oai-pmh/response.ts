/** Plain data of one OAI-PMH 2.0 response (OAI-PMH 2.0 §3.2 and §4), rendered by render.ts. */

export const OAI_NS = 'http://www.openarchives.org/OAI/2.0/';
export const OAI_SCHEMA = 'http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd';
export const LR_NS = 'http://www.learningregistry.org/OAI/2.0/';

export type OaiErrorCode = 'badVerb' | 'badArgument' | 'badResumptionToken' | 'cannotDisseminateFormat' | 'idDoesNotExist' | 'noRecordsMatch' | 'noMetadataFormats' | 'noSetHierarchy';

export interface OaiHeader { identifier: string; datestamp: string; deleted: boolean }

/** Metadata: a checked XML fragment (inserted as it is; `wrapped` in an element of the extension schema) or a JSON document (the JSON prefix). */
export type OaiMetadata = { xml: string; wrapped?: true } | { json: unknown };

export interface OaiRecord { header: OaiHeader; metadata?: OaiMetadata }

export interface OaiToken { value: string; cursor: number; completeListSize?: number; expirationDate?: string }

export interface OaiFormat { metadataPrefix: string; schema: string; metadataNamespace?: string }

export interface OaiIdentify {
  repositoryName: string;
  baseURL: string;
  adminEmails: string[];
  earliestDatestamp: string;
  deletedRecord: 'no' | 'persistent' | 'transient';
  granularity: 'YYYY-MM-DD' | 'YYYY-MM-DDThh:mm:ssZ';
  /** Content encodings the repository answers in besides identity (§4.2 <compression>). */
  compression: readonly string[];
}

export type OaiBody =
  | { kind: 'error'; errors: { code: OaiErrorCode; message: string }[] }
  | { kind: 'Identify'; identify: OaiIdentify }
  | { kind: 'ListMetadataFormats'; formats: OaiFormat[] }
  | { kind: 'ListSets' }
  | { kind: 'GetRecord'; records: OaiRecord[] }
  | { kind: 'ListRecords'; records: OaiRecord[]; token?: OaiToken }
  | { kind: 'ListIdentifiers'; headers: OaiHeader[]; token?: OaiToken };

export interface OaiResponse {
  responseDate: string;
  /** The base URL (text of <request>) and, except for badVerb/badArgument, the request's arguments. */
  request: { baseURL: string; attributes?: Record<string, string> };
  body: OaiBody;
  /** Where the extension schema is served (service_data.schemalocation). */
  extensionSchema: string;
}
