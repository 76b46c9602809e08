/**
 * The e-mail address in a node's `node_admin_identity`, which Identify's adminEmail is taken from
 * (spec "OAI-PMH Harvest (XML)" and "Basic Harvest (JSON)": adminEmail from node_admin_identity).
 * OAI-PMH.xsd types adminEmail by the pattern `\S+@(\S+\.)+\S+`, so a whole identity such as
 * `Jane Admin <jane@example.org>` (RFC 5322's name-addr, the usual form of Learning Registry
 * identities, e.g. a signer's) made every Identify response invalid: the address in its angle
 * brackets is the adminEmail. JavaScript's `\S` is narrower than XML Schema's (it also excludes
 * Unicode spaces), so an address this accepts is one the schema accepts.
 */
const OAI_EMAIL = /^\S+@(\S+\.)+\S+$/;

/** The address in `identity` (bare, or the last `<...>` of a name-addr), or undefined when it names none. */
export function adminEmailOf(identity: string): string | undefined {
  const bracketed = /<([^<>]*)>\s*$/.exec(identity);
  const address = (bracketed ? bracketed[1] ?? '' : identity).trim();
  return OAI_EMAIL.test(address) ? address : undefined;
}
