/** Signatures, replacement, tombstones and deletion through POST /publish (spec "States and transitions"). */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, currentStatus, type TestNode } from '../support/node.js';
import { keyServer, replacementChain, type Doc } from '../support/documents.js';
import { generateNodeKeyPair } from '../../src/domain/signature/node-key-pair.js';
import { signEnvelope } from '../../src/domain/signature/lr-pgp-sign.js';
import { verifyEnvelopeSignature } from '../../src/domain/signature/lr-pgp-verify.js';

type Keys = Awaited<ReturnType<typeof generateNodeKeyPair>>;

/** A 0.49.0 inline document (replacement needs 0.49 or later), from the sample chain. */
function doc049(fields: Doc): Doc {
  const { doc_ID: _id, replaces: _r, ...template } = replacementChain()[0] as Doc;
  void _id; void _r;
  return { ...template, ...fields };
}

describe('signed publishing, replacement and deletion', () => {
  let node: TestNode;
  let keys: Awaited<ReturnType<typeof keyServer>>;
  let signer: Keys & { location: string };
  let stranger: Keys & { location: string };
  let superKey: Keys & { location: string };
  const AUTH = { authorization: basicAuth('alice', 'alice-password-1') };
  const BOB = { authorization: basicAuth('bob', 'bob-password-12') };

  const sign = (doc: Doc, key: Keys & { location: string }): Promise<Doc> => signEnvelope(doc, key.privateKeyArmored, undefined, [key.location]);
  const publish = async (docs: Doc[], auth = AUTH): Promise<{ doc_ID: string; OK: boolean; error?: string }[]> => {
    const { status, body } = await postJson(`${node.url}/publish`, { documents: docs }, auth);
    expect(status).to.equal(200);
    return body.document_results as { doc_ID: string; OK: boolean; error?: string }[];
  };
  const stored = async (id: string): Promise<Doc> => node.couch.use(node.names.resourceData).get(id) as unknown as Promise<Doc>;

  before(async () => {
    keys = await keyServer();
    const make = async (name: string): Promise<Keys & { location: string }> => {
      const pair = await generateNodeKeyPair(name, `${name}@example.org`);
      return { ...pair, location: keys.put(name, pair.publicKeyArmored) };
    };
    [signer, stranger, superKey] = await Promise.all([make('signer'), make('stranger'), make('super')]);
    node = await startTestNode({ nodeConfig: { policy: { verify_signatures: true, allow_private_fetch: true, trusted_super_keys: [superKey.fingerprint] } } });
    await addAccount(node, 'alice', 'alice-password-1');
    await addAccount(node, 'bob', 'bob-password-12');
  });
  after(async () => {
    await node.stop();
    await keys.close();
  });

  it('verifies a signature against the key fetched from key_location', async () => {
    const results = await publish([await sign(doc049({ doc_ID: 'signed-1' }), signer)]);
    expect(results[0]).to.deep.equal({ doc_ID: 'signed-1', OK: true });
  });

  it('a signed document is stored as it was signed, its identity too: the signature still verifies', async () => {
    // The node once named the publishing account as the submitter of an anonymous or unattributed
    // document, signed or not, and the stored copy no longer matched its signature.
    // (A signed 0.49 document must name a submitter: one that names none is invalid, not filled in.)
    // An empty submitter is one the account would fill in, were the document not signed.
    for (const [docId, identity] of [['signed-anonymous', { submitter_type: 'anonymous', submitter: 'anonymous' }], ['signed-org', { submitter_type: 'agent', submitter: 'Some Org' }], ['signed-empty-submitter', { submitter_type: 'agent', submitter: '' }]] as const) {
      const signed = await sign(doc049({ doc_ID: docId, identity }), signer);
      const results = await publish([signed]);
      expect(results, JSON.stringify(results)).to.deep.equal([{ doc_ID: docId, OK: true }]);
      const saved = await stored(docId);
      expect(saved.identity, docId).to.deep.equal(identity);
      expect(await verifyEnvelopeSignature(saved, [signer.publicKeyArmored]), docId).to.include({ ok: true, fingerprint: signer.fingerprint });
    }
    // Naming none, it is refused by validation, not changed (which would break its signature).
    const [unnamed] = await publish([await sign(doc049({ doc_ID: 'signed-unnamed', identity: { submitter_type: 'agent' } }), signer)]);
    expect(unnamed?.OK).to.equal(false);
    expect(unnamed?.error).to.match(/submitter/).and.not.match(/signature/);
  });

  it('rejected signature: a tampered document', async () => {
    const signed = await sign(doc049({ doc_ID: 'tampered' }), signer);
    const results = await publish([{ ...signed, keys: ['changed after signing'] }]);
    expect(results[0]?.error).to.match(/^rejected signature/);
  });

  it('rejected signature: a key location that serves nothing', async () => {
    const signed = await signEnvelope(doc049({ doc_ID: 'no-key' }), signer.privateKeyArmored, undefined, [`${keys.url}/missing`]);
    const results = await publish([signed]);
    expect(results[0]?.error).to.match(/^rejected signature: no public key could be fetched/);
  });

  it('a real replacement chain: publish, replace, delete (0.49, signed)', async () => {
    const [original, replacement, deletion] = replacementChain();
    expect((await publish([await sign(original as Doc, signer)]))[0]?.OK).to.equal(true);
    expect((await publish([await sign(replacement as Doc, signer)]))[0]?.OK).to.equal(true);
    const tombstone = await stored('urn:example-host:nosetest:0001-0');
    expect(tombstone).to.include({ doc_type: 'tombstone', doc_ID: 'urn:example-host:nosetest:0001-0', resource_locator: 'http://example.com' });
    expect(tombstone).to.have.property('do_not_distribute');
    expect(tombstone.replaced_by).to.deep.equal({ doc_ID: 'urn:example-host:nosetest:0001-1', public_key_fingerprint: signer.fingerprint.toUpperCase(), public_key_locations: [signer.location] });
    expect((await publish([await sign(deletion as Doc, signer)]))[0]?.OK).to.equal(true);
    const deleted = await stored('urn:example-host:nosetest:0001-1');
    expect(deleted).to.include({ doc_type: 'tombstone', deleted: true });
    expect((await stored('urn:example-host:nosetest:0001-2')).payload_placement).to.equal('none');
  });

  it('republishing a doc_ID that is a tombstone is refused', async () => {
    const [original] = replacementChain();
    const results = await publish([await sign(original as Doc, signer)]);
    expect(results[0]?.error).to.match(/^rejected replacement: this doc_ID has been replaced/);
  });

  it('rejected replacement: signed with another key', async () => {
    await publish([await sign(doc049({ doc_ID: 'owned-by-signer' }), signer)]);
    const results = await publish([await sign(doc049({ doc_ID: 'hijack', replaces: ['owned-by-signer'] }), stranger)]);
    expect(results[0]?.error).to.equal('rejected replacement: signed with a different key than the original');
    expect((await stored('owned-by-signer')).doc_type).to.equal('resource_data');
  });

  it('a trusted super key may replace a document of another key', async () => {
    const results = await publish([await sign(doc049({ doc_ID: 'by-super', replaces: ['owned-by-signer'] }), superKey)]);
    expect(results[0]?.OK).to.equal(true);
    expect((await stored('owned-by-signer')).doc_type).to.equal('tombstone');
  });

  it('the first tombstone wins', async () => {
    await publish([await sign(doc049({ doc_ID: 'first-orig' }), signer)]);
    await publish([await sign(doc049({ doc_ID: 'first-a', replaces: ['first-orig'] }), signer)]);
    const results = await publish([await sign(doc049({ doc_ID: 'first-b', replaces: ['first-orig'] }), signer)]);
    expect(results[0]?.OK).to.equal(true);
    expect(((await stored('first-orig')).replaced_by as Doc).doc_ID).to.equal('first-a');
  });

  it('a replacement within one batch tombstones the document published earlier in it', async () => {
    const [a, b] = [await sign(doc049({ doc_ID: 'batch-a' }), signer), await sign(doc049({ doc_ID: 'batch-b', replaces: ['batch-a'] }), signer)];
    const results = await publish([a, b]);
    expect(results.map((r) => r.OK)).to.deep.equal([true, true]);
    expect((await stored('batch-a')).doc_type).to.equal('tombstone');
  });

  it('same doc_ID by the same key replaces the document in total; immutable fields kept', async () => {
    await publish([await sign(doc049({ doc_ID: 'update-me', keys: ['v1'] }), signer)]);
    const before = await stored('update-me');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const results = await publish([await sign(doc049({ doc_ID: 'update-me', keys: ['v2'] }), signer)]);
    expect(results[0]?.OK).to.equal(true);
    const after = await stored('update-me');
    expect(after.keys).to.deep.equal(['v2']);
    expect(after.create_timestamp).to.equal(before.create_timestamp);
    expect(after.publish_node).to.equal(before.publish_node);
    expect(after.node_timestamp).to.not.equal(before.node_timestamp);
    const hijack = await publish([await sign(doc049({ doc_ID: 'update-me', keys: ['v3'] }), stranger)]);
    expect(hijack[0]?.error).to.match(/^rejected replacement/);
  });

  describe('proxy signing', () => {
    it('the node signs an unsigned document an account publishes as its own submitter', async () => {
      const doc = doc049({ doc_ID: 'proxy-1', identity: { submitter: 'alice', submitter_type: 'agent' } });
      expect((await publish([doc]))[0]?.OK).to.equal(true);
      const saved = await stored('proxy-1');
      const pubkey = await (await fetch(`${node.url}/pubkey`)).text();
      const verified = await verifyEnvelopeSignature(saved, [pubkey]);
      expect(verified.ok).to.equal(true);
      expect((saved.digital_signature as Doc).key_location).to.deep.equal([`${node.publicUrl}/pubkey`]);
    });

    it('the same account may replace it; another account may not', async () => {
      const bobs = await publish([doc049({ doc_ID: 'proxy-bob', identity: { submitter: 'bob', submitter_type: 'agent' }, replaces: ['proxy-1'] })], BOB);
      expect(bobs[0]?.error).to.equal('rejected replacement: the original was proxy-signed for another submitter');
      const alices = await publish([doc049({ doc_ID: 'proxy-2', identity: { submitter: 'alice', submitter_type: 'agent' }, replaces: ['proxy-1'] })]);
      expect(alices[0]?.OK).to.equal(true);
      expect((await stored('proxy-1')).doc_type).to.equal('tombstone');
    });

    it('an unsigned original cannot be replaced without a key', async () => {
      const unsigned = doc049({ doc_ID: 'bob-unsigned', identity: { submitter: 'somebody', submitter_type: 'agent' } });
      expect((await publish([unsigned], BOB))[0]?.OK).to.equal(true);
      const results = await publish([await sign(doc049({ doc_ID: 'bob-replace', replaces: ['bob-unsigned'] }), signer)], BOB);
      expect(results[0]?.error).to.equal('rejected replacement: the original is unsigned: only a trusted super key may replace it');
    });
  });

  it('updates of one doc_ID sent at once all land, one after the other, as they would in turn', async () => {
    // With one re-read and retry, the losers of each round answered "publish failed: conflict".
    await publish([await sign(doc049({ doc_ID: 'busy-doc', keys: ['v0'] }), signer)]);
    const versions = ['v1', 'v2', 'v3', 'v4', 'v5', 'v6'];
    const updates = await Promise.all(versions.map(async (version) => sign(doc049({ doc_ID: 'busy-doc', keys: [version] }), signer)));
    const answers = await Promise.all(updates.map((update) => publish([update])));
    expect(answers.map((results) => results[0]), JSON.stringify(answers)).to.deep.equal(versions.map(() => ({ doc_ID: 'busy-doc', OK: true })));
    expect(versions).to.include(((await stored('busy-doc')).keys as string[])[0]);
  });

  it('a replacement sent with an update of its original: the original ends as a tombstone, whichever lands first', async () => {
    // The tombstone was written on the revision read first; when the update landed in between,
    // it met a conflict and was dropped, leaving the replacement and the updated original both live.
    const rounds = 8;
    for (let round = 0; round < rounds; round += 1) {
      await publish([await sign(doc049({ doc_ID: `raced-${round}`, keys: ['v1'] }), signer)]);
    }
    const outcomes = await Promise.all(Array.from({ length: rounds }, async (_, round) => {
      const [replacement, update] = await Promise.all([
        sign(doc049({ doc_ID: `raced-${round}-new`, replaces: [`raced-${round}`] }), signer),
        sign(doc049({ doc_ID: `raced-${round}`, keys: ['v2'] }), signer),
      ]);
      // The replacement sent a little later in each round, so that some rounds meet the update
      // between the replacement's read of its original and its tombstone's write.
      const later = new Promise((resolve) => setTimeout(resolve, round * 4)).then(() => publish([replacement]));
      const [replaced, updated] = await Promise.all([later, publish([update])]);
      return { round, replaced: replaced[0], updated: updated[0], original: await stored(`raced-${round}`) };
    }));
    for (const { round, replaced, updated, original } of outcomes) {
      expect(replaced?.OK, `round ${round}`).to.equal(true);
      // Update first, then the replacement: the updated original is tombstoned. Replacement
      // first: the update is refused ("has been replaced").
      expect(original.doc_type, `round ${round}: ${JSON.stringify(updated)}`).to.equal('tombstone');
      if (updated?.OK !== true) expect(updated?.error).to.match(/has been replaced/);
    }
  });

  it('tombstones are not counted as live documents', async () => {
    const body = await currentStatus(node.url);
    const all = await node.couch.use(node.names.resourceData).list({ include_docs: true });
    // Live as the services decide it (issue 12): deletion documents (payload_placement "none") are not.
    const live = all.rows.filter((row) => { const doc = row.doc as unknown as Doc; return doc.doc_type === 'resource_data' && doc.payload_placement !== 'none' && !doc.node_deleted; }).length;
    expect(body.doc_count).to.equal(live);
  });
});
