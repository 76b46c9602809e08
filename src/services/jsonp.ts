/**
 * What an unknown `callback` argument means: a page asking for JSONP, as the original node served
 * its browser clients (obtain.py, harvest.py). JSONP runs the answer as script in the asking page,
 * with the visitor's cookies: this node offers CORS instead (src/http/cross-origin.ts), and says so.
 */
export function jsonpNote(unknownArguments: readonly string[]): string {
  return unknownArguments.includes('callback') ? ' (JSONP is not served: a web page reads this node by CORS, which its operator allows with CORS_ORIGINS)' : '';
}
