/**
 * Python 2.7 `str(float)` in JavaScript: how the pre-2014 `'keep-int'` number mode of the
 * canonical hash (canonical-hash.ts) writes a float.
 */
import { CanonicalHashError } from './canonical-hash-error.js';

/**
 * Python 2.7 `str(float)`: 12 significant digits, correctly rounded (ties to even), `%g`-like
 * layout, `.0` appended to integral results.
 */
export function pythonFloatStr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const precision = 12;
  // toExponential(99) gives the first 100 significant digits of the exact binary value, so
  // exact ties can be rounded half-to-even as Python's dtoa does (JS itself rounds ties up).
  const match = /^(-?)(\d)\.(\d+)e([+-]\d+)$/.exec(x.toExponential(99));
  if (!match) throw new CanonicalHashError(`cannot format number ${x}`);
  const sign = match[1] ?? '';
  const allDigits = (match[2] ?? '') + (match[3] ?? '');
  let exponent = Number(match[4]);
  let digits = allDigits.slice(0, precision);
  const next = allDigits.charAt(precision);
  const tailNonZero = /[1-9]/.test(allDigits.slice(precision + 1));
  const lastOdd = Number(digits.charAt(precision - 1)) % 2 === 1;
  if (next > '5' || (next === '5' && (tailNonZero || lastOdd))) {
    const rounded = (BigInt(digits) + 1n).toString();
    if (rounded.length > precision) {
      digits = rounded.slice(0, precision);
      exponent += 1;
    } else {
      digits = rounded;
    }
  }
  let out: string;
  // Python switches to exponent notation one digit earlier than C's %g when it adds ".0"
  // (format_float_short: decpt > precision - 1), so 123456789012.0 prints as 1.23456789012e+11.
  if (exponent < -4 || exponent >= precision - 1) {
    let mantissa = digits.slice(0, 1);
    const fraction = digits.slice(1).replace(/0+$/, '');
    if (fraction.length > 0) mantissa += `.${fraction}`;
    const expAbs = Math.abs(exponent);
    out = `${sign}${mantissa}e${exponent < 0 ? '-' : '+'}${expAbs < 10 ? '0' : ''}${expAbs}`;
  } else if (exponent < 0) {
    const body = `0.${'0'.repeat(-exponent - 1)}${digits}`.replace(/0+$/, '');
    out = `${sign}${body}`;
  } else {
    const intPart = digits.slice(0, exponent + 1);
    const fraction = digits.slice(exponent + 1).replace(/0+$/, '');
    out = `${sign}${intPart}${fraction.length > 0 ? `.${fraction}` : ''}`;
  }
  // Python 2 float.__str__ appends ".0" when %g produced something that looks like an int.
  if (!/[.eEn]/.test(out)) out += '.0';
  return out;
}
