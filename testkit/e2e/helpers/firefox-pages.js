// The extension's own pages in Firefox under puppeteer: WebDriver BiDi refuses to navigate a tab
// to moz-extension: URLs, but a site page may frame the pages a TEST build makes web-accessible
// (popup.html, options.html), and puppeteer can evaluate in that frame. Its Frame.url() reads
// about:blank there, so the frame is found by its own location.
import assert from 'node:assert/strict';

/**
 * Replace `page`'s body with an iframe of the extension page `file` and return its Frame.
 * @param {import('puppeteer-core').Page} page  a site page (http:)
 * @param {string} base  moz-extension://UUID/
 * @param {string} file  e.g. 'options.html'
 * @param {{width?: number, height?: number}} [size]  CSS pixels
 */
export async function frameExtensionPage(page, base, file, { width = 780, height = 300 } = {}) {
  const src = new URL(file, base).href;
  await page.evaluate((u, w, h) => {
    document.body.replaceChildren();
    const f = document.createElement('iframe');
    f.src = u;
    f.style.cssText = `width:${w}px;height:${h}px;border:0`;
    document.body.append(f);
    return new Promise((resolve) => f.addEventListener('load', resolve, { once: true }));
  }, src, width, height);
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue;
    const href = await frame.evaluate(() => location.href).catch(() => null);
    if (href === src) return frame;
  }
  assert.fail(`no frame shows ${src}`);
}

/**
 * Write the extension's settings from a framed options page (as the options page itself does).
 * @param {import('puppeteer-core').Page} page  a site page; its body is replaced
 * @param {string} base
 * @param {object} settings
 */
export async function setFirefoxOptions(page, base, settings) {
  const frame = await frameExtensionPage(page, base, 'options.html');
  await frame.evaluate((s) => /** @type {any} */ (globalThis).browser.storage.local.set({ settings: s }), settings);
}
