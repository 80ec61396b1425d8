import { escapeHtml as e } from './markup';

export interface PageShell {
  /** The document's language (`en` unless a page says otherwise) and, for a right-to-left one, `rtl`. */
  lang?: string;
  dir?: 'ltr' | 'rtl';
  title: string;
  /** This response's nonce (pageHeaders), for the one <style>. */
  nonce: string;
  style: string;
  /** What comes before <main> (a skip link, a banner, a header) and after it (a live region, the page's script). */
  before?: string;
  after?: string;
  /** The id of <main>, the target of a skip link. */
  mainId?: string;
  main: string;
}

/** The document around a page: not indexed, scaled to the device, one nonce'd <style>, one <main>. */
export function pageShell(page: PageShell): string {
  const { lang = 'en', dir, before = '', after = '' } = page;
  return `<!doctype html>
<html lang="${e(lang)}"${dir ? ` dir="${dir}"` : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${e(page.title)}</title>
<style nonce="${e(page.nonce)}">${page.style}</style>
</head>
<body>
${before}
<main${page.mainId ? ` id="${e(page.mainId)}"` : ''}>
${page.main}
</main>
${after}
</body>
</html>`;
}
