/** Request bodies with sensible defaults; each test overrides only what it is about. */
export function buildOrderInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    items: [
      { name: 'Espresso', quantity: 2, unitPrice: 350 },
      { name: 'Croissant', quantity: 1, unitPrice: 425 },
    ],
    ...overrides,
  };
}

export function buildSessionInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...buildOrderInput(), successUrl: 'https://merchant.example/thanks?session={SESSION_ID}', ...overrides };
}

export function uniqueId(label: string): string {
  return `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
