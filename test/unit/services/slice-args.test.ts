/** any_tags (spec "Slice (optional)": "matches a value in keys"): a comma list in which a key holding a comma is quoted. */
import { expect } from 'chai';
import { parseSliceArgs, splitTags } from '../../../src/services/slice/slice-args.js';
import { AppError } from '../../../src/errors/app-error.js';

describe('slice any_tags', () => {
  it('splits on bare commas, as the original node did', () => {
    expect(splitTags('math,science, art')).to.deep.equal(['math', 'science', ' art']);
  });

  it('takes a quoted tag whole, commas and doubled quotes included', () => {
    expect(splitTags('"interest, simple interest",math')).to.deep.equal(['interest, simple interest', 'math']);
    expect(splitTags(' "say ""hi"", then go" ')).to.deep.equal(['say "hi", then go ']);
    expect(splitTags('a"b,c')).to.deep.equal(['a"b', 'c']);
  });

  it('refuses a quote left open, as a 400', () => {
    expect(() => splitTags('"interest, simple')).to.throw(AppError).with.property('status', 400);
  });

  it('gives the view keys: trimmed, lower-cased, distinct and sorted', () => {
    expect(parseSliceArgs({ any_tags: ['"Interest, Simple Interest" ,Math', 'math'] }).tags).to.deep.equal(['interest, simple interest', 'math']);
  });
});
