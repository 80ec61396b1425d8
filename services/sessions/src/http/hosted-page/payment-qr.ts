import QRCode from 'qrcode';
import { escapeHtml } from '@checkout/html';

/**
 * The payment address as an inline SVG QR code (rendered here, so the page needs no script or image request for
 * it and the CSP stays as strict as it is). The address itself is encoded, which every wallet scans; `label` is its
 * accessible name, in the page's language.
 */
export async function paymentQrSvg(address: string, label: string): Promise<string> {
  const svg = await QRCode.toString(address, {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin: 2,
    color: { dark: '#000000', light: '#ffffff' },
  });
  return svg.replace(
    '<svg ',
    `<svg role="img" aria-label="${escapeHtml(label)}" width="192" height="192" focusable="false" `,
  );
}
