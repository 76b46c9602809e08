/**
 * Namespaces and error URIs of the SWORD 1.3 profile (its section 1.2, "Namespaces", and
 * section 2.3.1, "Error documents"), and the Atom Publishing Protocol (RFC 5023, section 2.1).
 */
export const NS = {
  app: 'http://www.w3.org/2007/app',
  atom: 'http://www.w3.org/2005/Atom',
  sword: 'http://purl.org/net/sword/',
  dcterms: 'http://purl.org/dc/terms/',
} as const;

const ERROR_BASE = 'http://purl.org/net/sword/error/';

/** The profile's error URIs with the HTTP status each is answered with. */
export const SWORD_ERRORS = {
  ErrorContent: { uri: `${ERROR_BASE}ErrorContent`, status: 415 },
  ErrorChecksumMismatch: { uri: `${ERROR_BASE}ErrorChecksumMismatch`, status: 412 },
  ErrorBadRequest: { uri: `${ERROR_BASE}ErrorBadRequest`, status: 400 },
  TargetOwnerUnknown: { uri: `${ERROR_BASE}TargetOwnerUnknown`, status: 401 },
  MediationNotAllowed: { uri: `${ERROR_BASE}MediationNotAllowed`, status: 412 },
  MaxUploadSizeExceeded: { uri: `${ERROR_BASE}MaxUploadSizeExceeded`, status: 413 },
} as const;

export type SwordErrorName = keyof typeof SWORD_ERRORS;

/** Media types: RFC 5023 section 7 (service, entry); sword:error documents are Atom-like XML. */
export const MEDIA = {
  service: 'application/atomsvc+xml; charset=utf-8',
  entry: 'application/atom+xml; type=entry; charset=utf-8',
  error: 'application/xml; charset=utf-8',
} as const;
