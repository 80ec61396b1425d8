import type { Catalog } from '../catalog';

export const de: Catalog = {
  testMode: 'Testmodus',
  checkout: 'Bezahlen',
  payTitle: '{merchant} bezahlen',
  pay: '{amount} bezahlen',
  awaitingPayment: 'Zahlung ausstehend',
  failedAttempts: {
    one: 'Bisher {count} abgelehnter Zahlungsversuch.',
    other: 'Bisher {count} abgelehnte Zahlungsversuche.',
  },
  timeLeft: 'Verbleibende Zeit zum Bezahlen:',
  expiresAt: '(läuft ab am {time})',
  processorNote:
    'Zahlungen werden von unserem Zahlungsdienstleister abgewickelt; ' +
    'diese Seite aktualisiert sich, sobald Ihre Zahlung bestätigt ist.',
  unavailable:
    'Zahlungen in Stablecoins an diesen Händler sind nicht verfügbar. ' +
    'Wählen Sie eine andere Zahlungsart oder wenden Sie sich an den Händler.',
  terminalTitle: '{title} · {merchant}',
  completedTitle: 'Zahlung erhalten',
  completedText: 'Vielen Dank! Ihre Zahlung ist eingegangen.',
  expiredTitle: 'Bezahlvorgang abgelaufen',
  expiredText:
    'Dieser Bezahlvorgang ist abgelaufen. Für den offenen Betrag wurde nichts abgebucht. ' +
    'Bitte kehren Sie zum Händler zurück, um neu zu beginnen.',
  cancelledTitle: 'Bezahlvorgang storniert',
  cancelledText: 'Dieser Bezahlvorgang wurde vom Händler storniert. Es sind keine weiteren Zahlungen möglich.',
  returnTo: 'Zurück zu {merchant}',
  notFoundTitle: 'Bezahlvorgang nicht gefunden',
  notFoundText:
    'Wir konnten diesen Bezahlvorgang nicht finden. Prüfen Sie den Link oder kehren Sie zum Händler zurück, ' +
    'um neu zu beginnen.',
  formExpiredTitle: 'Bitte versuchen Sie es erneut',
  formExpiredText: 'Dieses Formular ist abgelaufen. Laden Sie die Seite neu und senden Sie es erneut ab.',
  noticeDeclined: 'Ihre Karte wurde abgelehnt. Es wurde nichts abgebucht. Versuchen Sie es mit einer anderen Karte.',
  noticeNotTestCard:
    'Das ist keine Testkarte. Verwenden Sie im Testmodus 4242 4242 4242 4242 (erfolgreich) ' +
    'oder 4000 0000 0000 0002 (abgelehnt).',
  noticeCardRequired: 'Geben Sie eine Kartennummer ein.',
  noticeRequired: 'Bitte füllen Sie die erforderlichen Angaben unten aus.',
  noticeAmount: 'Geben Sie einen Betrag von mindestens {minimum} ein.',
  noticeMethod: 'Diese Zahlungsart ist für diesen Bezahlvorgang nicht verfügbar.',
  noticePaidPartial: 'Zahlung erhalten. Der Rest ist noch offen.',
  noticeNotPayable: 'Für diesen Bezahlvorgang sind keine Zahlungen mehr möglich.',
  noticeDestinationUnavailable:
    'Zahlungen in Stablecoins an diesen Händler sind nicht verfügbar. Es wurde nichts abgebucht. ' +
    'Wählen Sie eine andere Zahlungsart oder wenden Sie sich an den Händler.',
  orderSummary: 'Bestellübersicht',
  summaryCaption: 'Artikel, Rabatte, Steuern und Gesamtbetrag',
  quantity: '× {quantity}',
  subtotal: 'Zwischensumme',
  total: 'Gesamt',
  paid: 'Bezahlt',
  remaining: 'Offen',
  noMethods: 'Für diesen Bezahlvorgang ist keine Zahlungsart verfügbar. Bitte wenden Sie sich an den Händler.',
  paymentMethod: 'Zahlungsart',
  methodCard: 'Karte',
  methodStablecoin: 'Stablecoin',
  methodStoredValue: 'Guthaben',
  cardNumber: 'Kartennummer',
  amountToPay: 'Zu zahlender Betrag (USD)',
  hintStablecoin: 'Sie können jetzt auch einen Teil des Betrags bezahlen.',
  hintStoredValue: 'Bezahlt die offenen {amount} mit Ihrem Guthaben.',
  sendPaymentTo: 'Senden Sie die Zahlung an',
  qrLabel: 'QR-Code der Zahlungsadresse',
  optional: '(optional)',
  yourDetails: 'Ihre Angaben',
  phone: 'Telefonnummer',
  shippingAddress: 'Lieferadresse',
  fullName: 'Vollständiger Name',
  addressLine1: 'Adresszeile 1',
  addressLine2: 'Adresszeile 2',
  city: 'Ort',
  region: 'Bundesland / Region',
  postalCode: 'Postleitzahl',
  countryCode: 'Ländercode',
  location: 'Filiale',
  chooseLocation: 'Filiale auswählen',
};
