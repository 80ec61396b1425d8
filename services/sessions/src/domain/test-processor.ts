// D27: the simulated processors of test mode. Live mode never comes here: its money moves in an external
// processor that reports captures to /internal/processor/notifications.

export const TEST_CARDS = {
  succeeds: '4242424242424242',
  declined: '4000000000000002',
} as const;

export type TestCardOutcome = 'succeeded' | 'declined' | 'not_test_card';

/** Digits only: people type card numbers with spaces or dashes. */
export function normalizeCardNumber(input: string): string {
  return input.replace(/[\s-]/g, '');
}

export function classifyTestCard(input: string): TestCardOutcome {
  const digits = normalizeCardNumber(input);
  if (digits === TEST_CARDS.succeeds) return 'succeeded';
  if (digits === TEST_CARDS.declined) return 'declined';
  return 'not_test_card';
}

export function last4(input: string): string {
  return normalizeCardNumber(input).replace(/\D/g, '').slice(-4);
}
