import type { PaymentMethod } from '@checkout/contracts';
import type { NoticeCode } from '../../domain/payment-methods';
import type { CollectedInputs, SessionBrand } from '../../store/session.document';

/** The words of each notice the page is sent back with (domain/payment-methods.ts names them). */
export const NOTICES: Record<NoticeCode, string> = {
  declined: 'Your card was declined. No money was taken. Try another card.',
  not_test_card:
    'That is not a test card. In test mode, use 4242 4242 4242 4242 (succeeds) or 4000 0000 0000 0002 (declined).',
  card_required: 'Enter a card number.',
  required: 'Please fill in the required details below.',
  amount: 'Enter an amount to pay, at least $0.01.',
  method: 'That payment method is not available for this checkout.',
  paid_partial: 'Payment received. The rest is still due.',
  not_payable: 'This checkout can no longer take payment.',
  destination_unavailable:
    'Stablecoin payments to this merchant are unavailable. No money was taken. Choose another method or contact the merchant.',
};

export interface PageContext {
  nonce: string;
  csrfToken: string;
  /** The name the page shows: the brand's display name, else the organization's (brand.ts shownName). */
  organizationName: string;
  /** The merchant's logo and colour (brand.ts), as the session was created with them. */
  brand?: SessionBrand | undefined;
  /** The methods offered (D26), in the payment methods table's order. */
  methods: PaymentMethod[];
  collected: CollectedInputs;
  locations: { id: string; name: string }[];
  notice?: NoticeCode | undefined;
  /** Opaque token of the displayed state; the poller swaps the page content in when /state reports another. */
  version: string;
  /** The server's clock when rendering: the countdown corrects the browser's clock by it. */
  now: Date;
  /** Where a stablecoin payment goes, with its QR code (an inline SVG), when the order has a destination. */
  payment?: { address: string; qrSvg: string } | undefined;
  /** The order's destination no longer takes payments: the page says so; stablecoin is not offered. */
  destinationUnavailable?: boolean;
}
