/** Which LevelDB errors stop the embedded store (src/embedded/storage-fault.ts). */
import { expect } from 'chai';
import { isStorageFault } from '../../../src/embedded/storage-fault.js';

describe('embedded store: storage faults', () => {
  it('stops on an IO error of a write or an open, also wrapped (levelup\'s OpenError)', () => {
    expect(isStorageFault(new Error('IO error: /data/store/resource_data/000013.log: No space left on device'))).to.equal(true);
    expect(isStorageFault(Object.assign(new Error('OpenError'), { cause: new Error('IO error: /data/store/_replicator/000005.ldb: No space left on device') }))).to.equal(true);
  });

  it('not on a corruption (a restart does not mend a damaged file, and the other databases go on serving), nor on other errors', () => {
    expect(isStorageFault(new Error('Corruption: checksum mismatch'))).to.equal(false);
    expect(isStorageFault(new Error('NotFound: '))).to.equal(false);
    expect(isStorageFault('IO error: not an Error')).to.equal(false);
    expect(isStorageFault(undefined)).to.equal(false);
  });
});
