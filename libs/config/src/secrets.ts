import { z } from 'zod';

/**
 * Words that make a value a placeholder, not a secret: what example files, tutorials and people typing in a hurry
 * put where a secret belongs (the `*.env.example` placeholders passed every check and would have handed
 * out the admin API and the processor's signature). They count only as whole tokens (see `tokens`), in one case
 * (lower, UPPER or Capitalized), and are at least five letters long: matched as substrings of any case, short
 * words ("todo", "xxxx", "abcdef") turned up by chance in about one random secret in 10⁴. A random token equals one
 * of these with a probability below 10⁻⁸ per value, and needs separators on both sides on top of that.
 */
const PLACEHOLDER_WORDS = new Set([
  'replace',
  'changeme',
  'example',
  'placeholder',
  'dummy',
  'sample',
  'secret',
  'password',
  'passw0rd',
  'letmein',
  'default',
  'qwerty',
  'asdfgh',
  'generate',
  'insert',
  'fillin',
  'redacted',
  'token',
  'internal',
  'xxxxx',
]);
/** Placeholder phrases of short words, as consecutive tokens ("change-me", "CHANGE_ME", "fill in", "your-key"). */
const PLACEHOLDER_PHRASES: readonly (readonly string[])[] = [
  ['change', 'me'],
  ['fill', 'in'],
  ['your', 'key'],
  ['your', 'token'],
  ['put', 'here'],
  ['goes', 'here'],
];

/**
 * The alphanumeric runs of a value, the words of a typed placeholder. Generated secrets (base64, base64url, hex)
 * have few separators (+ / - _ =), so a random token that happens to be a word must also be cut out by separators
 * on both sides, or by the value's ends; which is what keeps their false alarms below 10⁻⁹ per value.
 */
function tokens(value: string): string[] {
  return value.split(/[^A-Za-z0-9]+/).filter(Boolean);
}

/** A token in one case, as people type words: lower, UPPER or Capitalized; random tokens mix cases. */
function wordOf(token: string): string | null {
  return /^(?:[a-z0-9]+|[A-Z0-9]+|[A-Z][a-z0-9]+)$/.test(token) ? token.toLowerCase() : null;
}

/** A run of consecutive characters, up or down ("123456", "abcdef", "987654"): a keyboard's idea of random. */
function isSequence(token: string): boolean {
  if (token.length < 6) return false;
  const step = token.charCodeAt(1) - token.charCodeAt(0);
  if (step !== 1 && step !== -1) return false;
  for (let i = 2; i < token.length; i += 1) if (token.charCodeAt(i) - token.charCodeAt(i - 1) !== step) return false;
  return true;
}

/**
 * Whether `value` is placeholder words glued together or camel-cased ("ReplaceWithThirtyTwoRandomCharactersHere",
 * "changeme1changeme2changeme3changeme4"), which `tokens` sees as one token: its letter runs, cut at digits,
 * separators and at a lower to upper case change, include a placeholder word, and are each a word of three letters
 * or more in one case (lower, UPPER or Capitalized), eight letters at least in all. Both conditions: random
 * base64 is all such runs about once in 10⁵ values, and has a run equal to a placeholder word below once in 10⁶,
 * so together below 10⁻¹¹ per value.
 */
function gluedPlaceholder(value: string): boolean {
  const runs = value
    .split(/[^A-Za-z]+/)
    .filter(Boolean)
    .flatMap((run) => run.split(/(?<=[a-z])(?=[A-Z])/));
  if (!runs.some((run) => PLACEHOLDER_WORDS.has(run.toLowerCase()))) return false;
  const letters = runs.reduce((n, run) => n + run.length, 0);
  return letters >= 8 && runs.every((run) => /^(?:[a-z]{3,}|[A-Z]{3,}|[A-Z][a-z]{2,})$/.test(run));
}

/** Why `value` is a placeholder's shape, or null. Every rule is about whole tokens or the whole value. */
function placeholderShape(value: string): string | null {
  // Template syntax and unexpanded shell substitutions ("$(openssl rand -base64 32)", backquotes): none of these
  // characters is in the base64, base64url or hex alphabets.
  if (/<[^>]*>|\$\{|\{\{|\$\(|`/.test(value)) return 'a template';
  if (gluedPlaceholder(value)) return 'placeholder words glued together';
  const parts = tokens(value);
  const words = parts.map(wordOf);
  for (const word of words) if (word !== null && PLACEHOLDER_WORDS.has(word)) return 'a placeholder word';
  for (const phrase of PLACEHOLDER_PHRASES) {
    for (let i = 0; i + phrase.length <= words.length; i += 1)
      if (phrase.every((part, j) => words[i + j] === part)) return 'a placeholder phrase';
  }
  for (const token of parts) {
    // "xxxxxx", "000000": one character repeated as a whole token; a sequence as a whole token.
    if (token.length >= 6 && new Set(token).size === 1) return 'a repeated character';
    if (isSequence(token)) return 'a sequence';
  }
  // Long runs anywhere: 12 equal characters, or 10 consecutive ones, are below 10⁻⁹ even in 64 random hex digits.
  if (longestRun(value, 0) >= 12) return 'a repeated character';
  if (longestRun(value, 1) >= 10 || longestRun(value, -1) >= 10) return 'a sequence';
  return null;
}

/** The longest run of characters each `step` code points after the one before (0: the same character repeated). */
function longestRun(value: string, step: number): number {
  let longest = value.length > 0 ? 1 : 0;
  let current = longest;
  for (let i = 1; i < value.length; i += 1) {
    current = value.charCodeAt(i) - value.charCodeAt(i - 1) === step ? current + 1 : 1;
    if (current > longest) longest = current;
  }
  return longest;
}

/** Why `value` cannot be a secret, or null when it can. */
export function weakSecretReason(value: string, minLength: number): string | null {
  if (value.length < minLength) return `must be at least ${minLength} characters`;
  if (placeholderShape(value) !== null)
    return 'is a placeholder, not a secret: generate one (e.g. openssl rand -base64 32)';
  // Low entropy: generated secrets (base64, hex) use many distinct characters and more than words of one case
  // or digits alone; typed ones do not.
  if (
    new Set(value).size < 10 ||
    /^[a-z\s._-]+$/.test(value) ||
    /^[A-Z\s._-]+$/.test(value) ||
    /^[0-9]+$/.test(value)
  ) {
    return 'is too predictable for a secret: generate one (e.g. openssl rand -base64 32)';
  }
  return null;
}

/** A secret setting: long, not a placeholder, not guessable. Its value never appears in errors. */
export function secret(minLength = 24) {
  return z.string().superRefine((value, ctx) => {
    const reason = weakSecretReason(value, minLength);
    if (reason) ctx.addIssue({ code: 'custom', message: reason });
  });
}

/** A percent-encoded part of a URL as written, or as given when it is not valid encoding. */
export function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A MongoDB connection string; a password in it is held to the rules of a secret, but for its length. */
export function mongoUrl() {
  return z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URL')
    .superRefine((value, ctx) => {
      const password = /^mongodb(?:\+srv)?:\/\/[^:@/]*:([^@/]*)@/.exec(value)?.[1];
      if (password === undefined) return;
      const reason = weakSecretReason(safeDecode(password), 12);
      if (reason) ctx.addIssue({ code: 'custom', message: `its password ${reason}` });
    });
}
