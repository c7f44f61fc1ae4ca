// The benches' Chromium leaves DevTools' network reporting off: the page and its worker fetch as
// before, and puppeteer hears of none of it. The tests' Chromium keeps it (page.on('response')).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { launchChromium } from '@mutp/testkit/e2e/helpers/browsers';
import { listenLocal } from '@mutp/testkit/e2e/helpers/listen';

const BODY = 'x'.repeat(100_000); // a body of several chunks: DevTools reports each chunk it sees
const WORKER = `fetch('/data').then((r) => r.text()).then((t) => postMessage(t.length), (e) => postMessage(String(e)));`;
const PAGE = `<!doctype html><meta charset="utf-8"><title>bench browser</title><script>
  window.done = Promise.all([
    fetch('/data').then((r) => r.text()).then((t) => t.length),
    new Promise((resolve) => { new Worker('/worker.js').onmessage = (e) => resolve(e.data); }),
  ]);
</script>`;

describe('the benches\' Chromium', function () {
  this.timeout(60_000);
  let site;

  before(async function () {
    requireOrSkip(this, { commands: ['chromium'] });
    const server = createServer((req, res) => {
      const [type, body] = req.url === '/data' ? ['text/plain', BODY] : req.url === '/worker.js' ? ['text/javascript', WORKER] : ['text/html', PAGE];
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    });
    site = await listenLocal(server, '127.0.0.1');
  });

  after(async () => {
    await site?.close();
  });

  /** The page's and its worker's fetched lengths, and the responses puppeteer heard of. @param {boolean | undefined} watchNetwork */
  async function load(watchNetwork) {
    const chrome = await launchChromium(null, watchNetwork === undefined ? {} : { watchNetwork });
    try {
      const page = await chrome.browser.newPage();
      /** @type {string[]} */
      const heard = [];
      page.on('response', (r) => heard.push(new URL(r.url()).pathname));
      await page.goto(`${site.url}/`);
      const lengths = await page.evaluate(() => /** @type {any} */ (window).done);
      return { lengths, heard };
    } finally {
      await chrome.close();
    }
  }

  it('with watchNetwork: false, the page and its worker fetch as before and puppeteer hears of no response', async () => {
    const { lengths, heard } = await load(false);
    assert.deepEqual(lengths, [BODY.length, BODY.length]);
    assert.deepEqual(heard, []);
  });

  it('by default (the tests), puppeteer hears of the page\'s responses', async () => {
    const { lengths, heard } = await load(undefined);
    assert.deepEqual(lengths, [BODY.length, BODY.length]);
    assert.ok(heard.includes('/') && heard.includes('/data'), `heard: ${heard.join(', ')}`);
  });
});
