/** The advance tombstone (src/domain/advance-tombstone.ts): what it records, and that it is no resource. */
import { expect } from 'chai';
import { buildAdvanceTombstone, isAdvanceTombstone, recordedReplacement } from '../../../src/domain/advance-tombstone.js';
import { isDistributable, isHarvestable, isLive, resourceState } from '../../../src/domain/resource-document.js';
import { OWNER_FIELD, OwnerPseudonyms } from '../../../src/domain/ownership.js';
import { fixture, type Doc } from '../../support/documents.js';

const PROOF = { verifiedKeyIds: ['89abcdef01234567'], fingerprint: '0123456789abcdef0123456789abcdef01234567', keyLocations: ['http://example.com/pubkey'] };
const deletion: Doc = { doc_ID: 'del', identity: { submitter: 'Test Agent' }, payload_placement: 'none', [OWNER_FIELD]: 'alice' };

describe('advance tombstones', () => {
  const owners = new OwnerPseudonyms('a test secret');
  const advance = buildAdvanceTombstone('orig', deletion, PROOF, '2024-01-02T03:04:07.000000Z');

  it('is stored under the original\'s doc_ID as a document no service treats as a resource', () => {
    expect(advance._id).to.equal('orig');
    expect(isAdvanceTombstone(advance)).to.equal(true);
    expect(resourceState(advance)).to.equal('other');
    expect([isLive(advance), isHarvestable(advance), isDistributable(advance)]).to.deep.equal([false, false, false]);
  });

  it('has the shape of the resource-states fixture, which the design-doc functions are tested with', () => {
    const sample = fixture<{ documents: Record<string, Doc> }>('documents/resource-states.json').documents['advance-tombstone'] as Doc;
    const { _id: _ignored, ...built } = advance;
    void _ignored;
    expect(Object.keys(sample).sort()).to.deep.equal(Object.keys(built).sort());
    expect(Object.keys(sample.replaced_by as Doc).sort()).to.deep.equal(Object.keys(built.replaced_by).filter((key) => key !== 'publisher_account').sort());
  });

  it('gives back the replacement as the replacement rules read it: doc_ID, submitter, deletion, proof, and its account\'s ownership', () => {
    const recorded = recordedReplacement(advance, { doc_ID: 'orig', [OWNER_FIELD]: 'bob' }, owners);
    expect(recorded.replacement).to.deep.equal({ doc_ID: 'del', identity: { submitter: 'Test Agent' }, payload_placement: 'none' });
    expect(recorded.proof).to.deep.equal(PROOF);
    expect(recorded.byOwner).to.equal(false);
    expect(recordedReplacement(advance, { doc_ID: 'orig', [OWNER_FIELD]: 'alice' }, owners).byOwner).to.equal(true);
    const arrived = buildAdvanceTombstone('orig', { doc_ID: 'r', identity: { submitter: 'S' } }, PROOF, '2024-01-02T03:04:07.000000Z');
    expect(recordedReplacement(arrived, { doc_ID: 'orig' }, owners).byOwner).to.equal(undefined);
    expect(recordedReplacement(arrived, { doc_ID: 'orig' }, owners).replacement).to.deep.equal({ doc_ID: 'r', identity: { submitter: 'S' } });
  });

  it('compares recorded owners whether pseudonyms or plain names of earlier versions (ownership.ts)', () => {
    const byPseudonym = buildAdvanceTombstone('orig', { ...deletion, [OWNER_FIELD]: owners.of('alice') }, PROOF, '2024-01-02T03:04:07.000000Z');
    // An advance tombstone left before the upgrade (plain name), its original published after (pseudonym), and the reverse.
    expect(recordedReplacement(advance, { doc_ID: 'orig', [OWNER_FIELD]: owners.of('alice') }, owners).byOwner).to.equal(true);
    expect(recordedReplacement(byPseudonym, { doc_ID: 'orig', [OWNER_FIELD]: 'alice' }, owners).byOwner).to.equal(true);
    expect(recordedReplacement(byPseudonym, { doc_ID: 'orig', [OWNER_FIELD]: owners.of('alice') }, owners).byOwner).to.equal(true);
    expect(recordedReplacement(byPseudonym, { doc_ID: 'orig', [OWNER_FIELD]: owners.of('bob') }, owners).byOwner).to.equal(false);
    expect(recordedReplacement(byPseudonym, { doc_ID: 'orig', [OWNER_FIELD]: 'bob' }, owners).byOwner).to.equal(false);
    expect(recordedReplacement(byPseudonym, { doc_ID: 'orig' }, owners).byOwner).to.equal(false);
  });
});
