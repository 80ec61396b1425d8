import type { PaymentMethod } from '@checkout/contracts';

// The payment methods (D26, D27), one entry each: what the hosted page shows for it, when a session offers it,
// and how test mode simulates it. The hosted page renders from this table, and every simulated payment (the
// page's form and the test helper, D29) is checked against it. A new method is an entry here (the compiler asks
// for one once libs/contracts' PAYMENT_METHODS names it), its words in the hosted page's catalogs (pay-form.ts's
// METHOD_TEXT asks for them) and its tests (payment-methods.test.ts).

/** Why the hosted page sends the customer back to the form; page-context.ts's NOTICES names its words. */
export type NoticeCode =
  | 'declined'
  | 'not_test_card'
  | 'card_required'
  | 'required'
  | 'amount'
  | 'method'
  | 'paid_partial'
  | 'not_payable'
  | 'destination_unavailable';

/** One input of a method's panel in the test-mode form, labelled for people and assistive technology (D41). */
export interface FormField {
  name: string;
  /** In English; the hosted page shows its catalogs' label for the input's name (pay-form.ts's FIELD_TEXT). */
  label: string;
  inputMode: 'numeric' | 'decimal';
  autocomplete?: string;
  placeholder?: string;
  /** Prefilled with the amount still due, in dollars. */
  prefillDue?: boolean;
}

/** What a test-mode payment by a method does, as its simulator decides from the form (D27). */
interface SimulatedPayment {
  outcome: 'succeeded' | 'declined';
  /** Minor units; absent: the amount still due. */
  amount?: number;
  cardLast4?: string;
}

/** What a method's availability may depend on beyond the organization's settings, asked only when needed. */
export interface OfferContext {
  /** Whether the payment destination the order names still accepts payments ('none': it names none). */
  destination(): Promise<'none' | 'accepting' | 'unavailable'>;
}

export interface PaymentMethodEntry {
  /** Its name in English; the hosted page shows its catalogs' words for it (http/hosted-page/pay-form.ts). */
  label: string;
  /** Its panel's inputs in the test-mode form, in order. */
  fields: readonly FormField[];
  /** Its panel shows where the money goes: the order's destination address and its QR code. */
  showsDestination: boolean;
  /**
   * Offered when the session's organization enables it for the session's mode (its checkout settings, snapshotted
   * on the session, D26) and this says true; otherwise this says why not.
   */
  available(context: OfferContext): Promise<true | NoticeCode>;
  /** Test mode (D27): the payment a submitted form asks for, or the notice that sends the customer back to fix it. */
  simulate(form: URLSearchParams): SimulatedPayment | NoticeCode;
}

const TEST_CARDS = {
  succeeds: '4242424242424242',
  declined: '4000000000000002',
} as const;

export const PAYMENT_METHOD_TABLE: Record<PaymentMethod, PaymentMethodEntry> = {
  card: {
    label: 'Card',
    fields: [
      {
        name: 'cardNumber',
        label: 'Card number',
        inputMode: 'numeric',
        autocomplete: 'cc-number',
        placeholder: '4242 4242 4242 4242',
      },
    ],
    showsDestination: false,
    available: () => Promise.resolve(true),
    // D27: 4242… succeeds, 4000 0000 0000 0002 is declined, anything else is not a test card. The number is never
    // stored or logged: only its last four digits go further. A card pays the amount due.
    simulate(form) {
      const digits = normalizeCardNumber(form.get('cardNumber') ?? '');
      if (digits === '') return 'card_required';
      if (digits === TEST_CARDS.succeeds) return { outcome: 'succeeded', cardLast4: digits.slice(-4) };
      if (digits === TEST_CARDS.declined) return { outcome: 'declined', cardLast4: digits.slice(-4) };
      return 'not_test_card';
    },
  },
  stablecoin: {
    label: 'Stablecoin',
    fields: [{ name: 'amount', label: 'Amount to pay (USD)', inputMode: 'decimal', prefillDue: true }],
    showsDestination: true,
    // While the destination the order names no longer accepts payments (deactivated, deleted,
    // unverified), no stablecoin payment is taken.
    available: async (context) => ((await context.destination()) === 'unavailable' ? 'destination_unavailable' : true),
    // D27: pays what the tester enters, so partial and over-payment can be exercised.
    simulate(form) {
      const cents = parseUsdToCents(form.get('amount') ?? '');
      return cents === null || cents < 1 ? 'amount' : { outcome: 'succeeded', amount: cents };
    },
  },
  stored_value: {
    label: 'Stored value',
    fields: [],
    showsDestination: false,
    available: () => Promise.resolve(true),
    simulate: () => ({ outcome: 'succeeded' }),
  },
};

/**
 * Whether `method` is offered to a session (D26): enabled for its organization and mode (`enabled`, the session's
 * snapshot of its checkout settings), and available by its entry; otherwise the notice saying why not.
 */
export async function offers(
  enabled: readonly PaymentMethod[],
  method: PaymentMethod,
  context: OfferContext,
): Promise<true | NoticeCode> {
  if (!enabled.includes(method)) return 'method';
  return PAYMENT_METHOD_TABLE[method].available(context);
}

/** Digits only: people type card numbers with spaces or dashes. */
function normalizeCardNumber(input: string): string {
  return input.replace(/[\s-]/g, '');
}

/** Parses "12", "12.3", "12.34", "$1,234.50" into cents; null when it is not an amount. */
export function parseUsdToCents(input: string): number | null {
  const cleaned = input.trim().replace(/^\$/, '').replace(/,/g, '');
  const match = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(cleaned);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}
