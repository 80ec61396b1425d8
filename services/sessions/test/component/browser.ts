import { chromium, type Browser } from 'playwright-core';

/** Where Chromium is (scripts/ensure-chromium.sh installs Debian's); CHROMIUM_PATH names another. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The Chromium the hosted page's browser tests drive: headless, without the sandbox, GPU or background traffic. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}
