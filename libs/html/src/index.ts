// What every server-rendered page of ours shares (the merchant dashboard on the gateway, the hosted payment page
// on sessions): escaping, markup written one element per line, the security headers, the page shell and amounts.
export { escapeHtml, markup } from './markup';
export { newNonce, pageHeaders, type PagePolicy } from './headers';
export { pageShell, type PageShell } from './page';
export { formatAmount } from './amounts';
