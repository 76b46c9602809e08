/** The node's own OpenPGP key pair (used for proxy signing and served at /pubkey). */
import * as openpgp from 'openpgp';

export interface GeneratedKeys { publicKey: string; privateKey: string; fingerprint: string }

export async function generateNodeKeys(nodeName: string, nodeId: string): Promise<GeneratedKeys> {
  const { publicKey, privateKey } = await openpgp.generateKey({
    type: 'ecc',
    curve: 'curve25519Legacy',
    userIDs: [{ name: nodeName, comment: `node ${nodeId}` }],
    format: 'armored',
  });
  const key = await openpgp.readKey({ armoredKey: publicKey });
  return { publicKey, privateKey, fingerprint: key.getFingerprint().toUpperCase() };
}
