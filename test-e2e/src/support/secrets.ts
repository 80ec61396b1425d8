// What the secrets scans look for beyond the secrets a run knows (secrets-in-logs.e2e.test.ts over the logs,
// traces.e2e.test.ts over every exported span): card numbers, and keys by their shape.

/** Luhn check of a digit string. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * A UUID (a consumer group member's id, logged at each join): its digit groups can line up into a Luhn-valid run of
 * 13–19 digits with dashes between them, about one UUID in 470 (`8769-4579102985` in
 * `aa1ef3d9-4e44-448d-8769-4579102985d3`).
 */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * Every run of 13–19 digits (spaces or dashes between groups allowed, as people type card numbers) that passes
 * Luhn, UUIDs left out.
 */
export function cardNumbersIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.replace(UUID, 'uuid').matchAll(/(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])/g)) {
    const digits = match[0].replace(/[ -]/g, '');
    if (luhnValid(digits)) found.push(match[0]);
  }
  return found;
}

/** Names of the known secrets found in `text`, keys and signing secrets by shape, and card numbers. */
export function secretsIn(text: string, known: ReadonlyMap<string, string>): string[] {
  const hits: string[] = [];
  for (const [name, value] of known) if (text.includes(value)) hits.push(name);
  for (const pattern of [/sk_(test|live)_[0-9A-Za-z]{20,}/, /whsec_[0-9A-Za-z+/=]{16,}/]) {
    const match = pattern.exec(text);
    if (match) hits.push(`pattern ${pattern.source}: ${match[0].slice(0, 14)}…`);
  }
  for (const card of cardNumbersIn(text)) hits.push(`card number ${card.slice(0, 4)}…`);
  return hits;
}
