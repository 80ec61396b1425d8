import { describe, expect, it } from 'vitest';
import { AdminTokenGuesses } from './admin-token-guesses';

describe('AdminTokenGuesses (operator-token guesses are limited per address)', () => {
  it('When an address sends the limit of wrong tokens in a minute, then it is refused until the minute ends, and others are not', () => {
    const guesses = new AdminTokenGuesses(3);
    const start = 60_000 * 100;
    for (let i = 0; i < 3; i += 1) {
      expect(guesses.blockedFor('198.51.100.7', start + i)).toBe(0);
      guesses.failed('198.51.100.7', start + i);
    }
    expect(guesses.blockedFor('198.51.100.7', start + 10)).toBe(60);
    expect(guesses.blockedFor('198.51.100.7', start + 59_500)).toBe(1);
    expect(guesses.blockedFor('203.0.113.1', start + 10)).toBe(0);
    expect(guesses.blockedFor('198.51.100.7', start + 60_000)).toBe(0);
  });
});
