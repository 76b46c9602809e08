/**
 * The part of openpgp 6's packet classes that clear-signing and its verification use, typed as
 * they behave at run time. openpgp's declarations lag its code here: `SignaturePacket.sign` and
 * `verify` take a literal data packet (declared as bytes) and need the full configuration (the
 * sign declaration has no parameter for it), `LiteralDataPacket.setText` is declared private and
 * `CleartextMessage` has no declared constructor. Both signature files go through this one cast,
 * so an openpgp upgrade that changes these shows up here (and in the LR-PGP.1.0 vectors and the
 * gpg interoperability test).
 */
import * as openpgp from 'openpgp';

export interface LiteralText {
  setText(text: string): void;
}

export interface SignatureData extends Omit<openpgp.SignaturePacket, 'sign' | 'verify'> {
  sign(key: openpgp.SecretKeyPacket | openpgp.SecretSubkeyPacket, data: LiteralText, date: Date, detached: boolean, config: openpgp.Config): Promise<void>;
  verify(key: openpgp.AnyKeyPacket, signatureType: openpgp.enums.signature, data: LiteralText, date: Date, detached: boolean, config: openpgp.Config): Promise<void>;
}

/** A clear-signed message as openpgp builds it (its `text` normalised, its `signature`). */
export type SignedCleartext = openpgp.CleartextMessage & { readonly text: string; readonly signature: openpgp.Signature };

interface PacketClasses {
  LiteralDataPacket: new () => LiteralText;
  SignaturePacket: new () => SignatureData;
  /** Normalises the text as openpgp.createCleartextMessage does (trailing spaces, CR LF). */
  CleartextMessage: new (text: string, signature?: openpgp.Signature) => SignedCleartext;
}

export const packets = openpgp as unknown as PacketClasses;

/** A literal data packet holding `text`, as openpgp's CleartextMessage sign and verify build it. */
export function literalText(text: string): LiteralText {
  const literal = new packets.LiteralDataPacket();
  literal.setText(text);
  return literal;
}

/** openpgp's defaults with `overrides`, as its top-level functions merge them per call. */
export function fullConfig(overrides: openpgp.PartialConfig = {}): openpgp.Config {
  return { ...openpgp.config, ...overrides };
}

/** openpgp's Signature of one packet (what a CleartextMessage carries). */
export function signatureOf(packet: SignatureData): openpgp.Signature {
  const list = new openpgp.PacketList<openpgp.SignaturePacket>();
  list.push(packet as unknown as openpgp.SignaturePacket);
  return new openpgp.Signature(list);
}

/** A signature packet openpgp read, with its run-time sign and verify. */
export function signatureData(packet: openpgp.SignaturePacket): SignatureData {
  return packet as unknown as SignatureData;
}
