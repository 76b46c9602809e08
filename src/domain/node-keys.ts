/** The node's own OpenPGP key pair (used for proxy signing and served at /pubkey). */
import { generateNodeKeyPair } from './signature/node-key-pair.js';

export interface GeneratedKeys { publicKey: string; privateKey: string; fingerprint: string }

/** Made once, when the node is first bootstrapped: an Ed25519 key named after the node (see generateNodeKeyPair). */
export async function generateNodeKeys(nodeName: string, nodeId: string): Promise<GeneratedKeys> {
  const pair = await generateNodeKeyPair(nodeName, '', { comment: `node ${nodeId}` });
  return { publicKey: pair.publicKeyArmored, privateKey: pair.privateKeyArmored, fingerprint: pair.fingerprint.toUpperCase() };
}
