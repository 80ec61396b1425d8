import type { Catalog } from '../catalog';

export const nl: Catalog = {
  testMode: 'Testmodus',
  checkout: 'Afrekenen',
  payTitle: '{merchant} betalen',
  pay: '{amount} betalen',
  awaitingPayment: 'Wacht op betaling',
  failedAttempts: {
    one: 'Tot nu toe {count} geweigerde betaalpoging.',
    other: 'Tot nu toe {count} geweigerde betaalpogingen.',
  },
  timeLeft: 'Resterende tijd om te betalen:',
  expiresAt: '(verloopt op {time})',
  processorNote:
    'Betalingen worden verwerkt door onze betaaldienstverlener; ' +
    'deze pagina wordt bijgewerkt zodra je betaling is bevestigd.',
  unavailable:
    'Betalingen in stablecoins aan deze verkoper zijn niet beschikbaar. ' +
    'Kies een andere betaalmethode of neem contact op met de verkoper.',
  terminalTitle: '{title} · {merchant}',
  completedTitle: 'Betaling ontvangen',
  completedText: 'Bedankt! Je betaling is ontvangen.',
  expiredTitle: 'Betaling verlopen',
  expiredText:
    'Deze betaling is verlopen. Er is niets afgeschreven voor het resterende bedrag. ' +
    'Ga terug naar de verkoper om opnieuw te beginnen.',
  cancelledTitle: 'Betaling geannuleerd',
  cancelledText: 'Deze betaling is door de verkoper geannuleerd. Er kan niet meer worden betaald.',
  returnTo: 'Terug naar {merchant}',
  notFoundTitle: 'Betaling niet gevonden',
  notFoundText:
    'We konden deze betaling niet vinden. Controleer de link of ga terug naar de verkoper om opnieuw te beginnen.',
  formExpiredTitle: 'Probeer het opnieuw',
  formExpiredText: 'Dit formulier is verlopen. Laad de pagina opnieuw en verstuur het nogmaals.',
  noticeDeclined: 'Je kaart is geweigerd. Er is niets afgeschreven. Probeer een andere kaart.',
  noticeNotTestCard:
    'Dat is geen testkaart. Gebruik in testmodus 4242 4242 4242 4242 (geslaagd) ' +
    'of 4000 0000 0000 0002 (geweigerd).',
  noticeCardRequired: 'Voer een kaartnummer in.',
  noticeRequired: 'Vul hieronder de verplichte gegevens in.',
  noticeAmount: 'Voer een bedrag in van minstens {minimum}.',
  noticeMethod: 'Die betaalmethode is niet beschikbaar voor deze betaling.',
  noticePaidPartial: 'Betaling ontvangen. De rest moet nog worden betaald.',
  noticeNotPayable: 'Voor deze betaling kan niet meer worden betaald.',
  noticeDestinationUnavailable:
    'Betalingen in stablecoins aan deze verkoper zijn niet beschikbaar. Er is niets afgeschreven. ' +
    'Kies een andere betaalmethode of neem contact op met de verkoper.',
  orderSummary: 'Overzicht van je bestelling',
  summaryCaption: 'Artikelen, kortingen, belastingen en totaal',
  quantity: '× {quantity}',
  subtotal: 'Subtotaal',
  total: 'Totaal',
  paid: 'Betaald',
  remaining: 'Nog te betalen',
  noMethods: 'Er is geen betaalmethode beschikbaar voor deze betaling. Neem contact op met de verkoper.',
  paymentMethod: 'Betaalmethode',
  methodCard: 'Kaart',
  methodStablecoin: 'Stablecoin',
  methodStoredValue: 'Tegoed',
  cardNumber: 'Kaartnummer',
  amountToPay: 'Te betalen bedrag (USD)',
  hintStablecoin: 'Je kunt nu ook een deel van het bedrag betalen.',
  hintStoredValue: 'Betaalt de resterende {amount} met je tegoed.',
  sendPaymentTo: 'Stuur de betaling naar',
  qrLabel: 'QR-code van het betaaladres',
  optional: '(optioneel)',
  yourDetails: 'Je gegevens',
  phone: 'Telefoonnummer',
  shippingAddress: 'Verzendadres',
  fullName: 'Volledige naam',
  addressLine1: 'Adresregel 1',
  addressLine2: 'Adresregel 2',
  city: 'Plaats',
  region: 'Provincie / regio',
  postalCode: 'Postcode',
  countryCode: 'Landcode',
  location: 'Vestiging',
  chooseLocation: 'Kies een vestiging',
};
