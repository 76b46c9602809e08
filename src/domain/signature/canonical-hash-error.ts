/** The error of the LR-PGP.1.0 canonical hash (canonical-hash.ts) and of its float formatting (python-float.ts). */

/** Thrown for values that cannot be part of a JSON document (functions, symbols, NaN...). */
export class CanonicalHashError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CanonicalHashError';
  }
}
