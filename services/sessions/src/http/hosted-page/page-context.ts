import type { PaymentMethod } from '@checkout/contracts';
import type { NoticeCode } from '../../domain/payment-methods';
import type { CollectedInputs, SessionBrand } from '../../store/session.document';
import type { TextKey } from './i18n/catalog';
import type { PageText } from './i18n/page-text';

/** The catalog text of each notice the page is sent back with (domain/payment-methods.ts names them). */
export const NOTICES: Record<NoticeCode, TextKey> = {
  declined: 'noticeDeclined',
  not_test_card: 'noticeNotTestCard',
  card_required: 'noticeCardRequired',
  required: 'noticeRequired',
  amount: 'noticeAmount',
  method: 'noticeMethod',
  paid_partial: 'noticePaidPartial',
  not_payable: 'noticeNotPayable',
  destination_unavailable: 'noticeDestinationUnavailable',
};

export interface PageContext {
  nonce: string;
  /** The page's words and formats, in the locale it is shown in (D53). */
  text: PageText;
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
