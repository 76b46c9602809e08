/** Datestamps of both harvests (OAI-PMH 2.0 §3.3.1: xsd date and dateTime in UTC). */
import { expect } from 'chai';
import { checkDateRange, parseDatestamp } from '../../../src/services/harvest/harvest-dates.js';

describe('harvest datestamps', () => {
  it('accepts every year of four digits, 0001-0099 included (Date.UTC reads them as 1900-1999)', () => {
    expect(parseDatestamp('0001-01-01')).to.deep.equal({ value: '0001-01-01', granularity: 'YYYY-MM-DD' });
    expect(parseDatestamp('0099-12-31T23:59:59Z')).to.deep.equal({ value: '0099-12-31T23:59:59Z', granularity: 'YYYY-MM-DDThh:mm:ssZ' });
    expect(checkDateRange('0050-06-01', '2030-01-01', 'YYYY-MM-DDThh:mm:ssZ')).to.deep.equal({ ok: true, bounds: { from: '0050-06-01T00:00:00.000000Z', until: '2030-01-01T23:59:59.999999Z' } });
  });

  it('refuses dates and times that do not exist', () => {
    for (const text of ['2023-02-30', '0004-02-30', '2023-13-01', '2023-01-01T24:00:00Z', '2023-01-01T10:60:00Z', '2023-1-01', '2023-01-01T10:00:00.5Z']) {
      expect(parseDatestamp(text), text).to.equal(undefined);
    }
    expect(parseDatestamp('0004-02-29')?.value).to.equal('0004-02-29');
  });

  it('an empty from or until is a value that is no date, not an absent bound (which would list everything)', () => {
    for (const [from, until] of [['', undefined], [undefined, ''], ['', '']] as const) {
      expect(checkDateRange(from, until, 'YYYY-MM-DDThh:mm:ssZ'), JSON.stringify({ from, until })).to.include({ ok: false });
    }
    expect(checkDateRange(undefined, undefined, 'YYYY-MM-DDThh:mm:ssZ')).to.deep.equal({ ok: true, bounds: { from: undefined, until: undefined } });
  });
});
