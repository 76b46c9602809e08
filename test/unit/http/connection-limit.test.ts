/** The connection limit's arithmetic (src/http/connection-limit.ts). */
import { expect } from 'chai';
import { connectionLimit, openFilesLimit } from '../../../src/http/connection-limit.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             127368               127368               processes
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

describe('connection limit', () => {
  it('reads the soft open-files limit of /proc/self/limits; none when unlimited or absent', () => {
    expect(openFilesLimit(LIMITS)).to.equal(1024);
    expect(openFilesLimit(LIMITS.replace('1024                 524288', 'unlimited            unlimited'))).to.equal(undefined);
    expect(openFilesLimit(undefined)).to.equal(undefined);
  });

  it('holds half the descriptors left after a reserve, and sets no limit a process could not work under', () => {
    expect(connectionLimit(1024)).to.equal(480);
    expect(connectionLimit(256)).to.equal(96);
    expect(connectionLimit(100)).to.equal(undefined);
    expect(connectionLimit(undefined)).to.equal(undefined);
  });
});
