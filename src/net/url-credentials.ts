/**
 * Credentials out of texts that may quote URLs (errors from CouchDB, PouchDB and peers; messages
 * naming a destination), so none reaches a log or an answer.
 */

/**
 * Removes `user:password@` from every URL in `text`. Everything from `//` to the last `@` before
 * the host goes: a password may itself hold an `@` (`http://ops:p@ss@peer.example/`, which the
 * WHATWG URL parser reads as the password `p@ss`), and matching to the first `@` left `ss@` of it.
 */
export function scrubCredentials(text: string): string {
  return text.replace(/\/\/[^/\s"']*@/g, '//');
}
