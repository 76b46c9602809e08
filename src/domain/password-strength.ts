/**
 * Minimum strength of an account password (set by `lr-node account` and the /auth pages). Length
 * alone let `password123`, `1234567890` and `qwertyuiop` through (an operator audit): NIST SP
 * 800-63B §5.1.1.2 asks that a chosen password be checked against commonly used ones, dictionary
 * words and repetitive or sequential characters. zxcvbn-ts estimates the guesses an attacker needs
 * from exactly those (its common-password and word lists, keyboard patterns, sequences, repeats,
 * dates, l33t substitutions); a password it estimates below 10^8 guesses (its score 3) is refused.
 */
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

const MIN_LENGTH = 10;
/** zxcvbn's score 3: "safely unguessable", at least 10^8 guesses. */
const MIN_SCORE = 3;

let estimator: ZxcvbnFactory | undefined;

/** Built at the first check: its word lists are a few MB, and most processes never set a password. */
function estimate(password: string, userInputs: string[]): number {
  estimator ??= new ZxcvbnFactory({ dictionary: { ...dictionary }, graphs: adjacencyGraphs });
  return estimator.check(password, userInputs).score;
}

/** Why `password` is too weak for the account `name`, or undefined. */
export function passwordWeakness(password: string, name: string): string | undefined {
  if (password.length < MIN_LENGTH) return `the password must be at least ${MIN_LENGTH} characters long`;
  if (new Set(password).size < 4) return 'the password must use at least 4 different characters';
  if (password.toLowerCase().includes(name.toLowerCase())) return 'the password must not contain the account name';
  if (estimate(password, [name]) < MIN_SCORE) return 'the password is too easy to guess (a common password, words from a list, a keyboard pattern or a sequence): add words of your own, or make it longer';
  return undefined;
}
