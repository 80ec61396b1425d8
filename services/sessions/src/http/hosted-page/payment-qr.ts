import QRCode from 'qrcode';

/**
 * The payment address as an inline SVG QR code (rendered here, so the page needs no script or image request for
 * it and the CSP stays as strict as it is). The address itself is encoded, which every wallet scans.
 */
export async function paymentQrSvg(address: string): Promise<string> {
  const svg = await QRCode.toString(address, {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin: 2,
    color: { dark: '#000000', light: '#ffffff' },
  });
  return svg.replace(
    '<svg ',
    '<svg role="img" aria-label="QR code of the payment address" width="192" height="192" focusable="false" ',
  );
}
