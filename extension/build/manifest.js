// One manifest source, two browsers (MV3 both). Differences: Chrome's background is a service
// worker, and the fleet client lives in an offscreen document (permission `offscreen`);
// Firefox's background is an event page that hosts the fleet client itself, and needs an add-on id.

export const NAME = 'MUTP Proxy client';
export const GECKO_ID = 'mutp-proxy-client@mutp.example'; // fixed: Firefox keys storage and the test's UUID map by it
const MIN_CHROME = '111'; // content scripts in world MAIN
const MIN_FIREFOX = '142.0'; // world MAIN needs 128; data_collection_permissions needs 140 (142 on Android)

/**
 * @param {'chrome' | 'firefox'} target
 * @param {string} version
 * @param {{testBuild?: boolean}} [o]  testBuild (build.js --config): the popup and options pages are
 *   web-accessible too, so a Firefox test (which cannot open extension pages) can frame them for screenshots
 */
export function manifest(target, version, { testBuild = false } = {}) {
  const contentScripts = [
    { matches: ['<all_urls>'], js: ['content-main.js'], run_at: 'document_start', all_frames: true, world: 'MAIN' },
    { matches: ['<all_urls>'], js: ['content-bridge.js'], run_at: 'document_start', all_frames: true },
  ];
  const m = {
    manifest_version: 3,
    name: NAME,
    version,
    description: 'Serves video chunk downloads through a fleet of proxies (Parallel HTTP, Uncoded and Coded MUTP) and logs every download; falls back to the direct download so playback never breaks.',
    permissions: ['storage', 'alarms'],
    host_permissions: ['<all_urls>'], // the patterns and the Origo URL are user settings: any host
    content_scripts: contentScripts,
    web_accessible_resources: [{ resources: testBuild ? ['frame.html', 'popup.html', 'options.html'] : ['frame.html'], matches: ['<all_urls>'] }],
    action: { default_popup: 'popup.html', default_title: NAME },
    options_ui: { page: 'options.html', open_in_tab: true },
    // the codec's WebAssembly needs wasm-unsafe-eval; nothing else is relaxed
    content_security_policy: { extension_pages: "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'" },
  };
  if (target === 'chrome') {
    return { ...m, permissions: [...m.permissions, 'offscreen'], background: { service_worker: 'background.js' }, minimum_chrome_version: MIN_CHROME };
  }
  return {
    ...m,
    background: { page: 'background.html' }, // background.js and the fleet host (fleet-host.js, a module)
    browser_specific_settings: {
      gecko: {
        id: GECKO_ID, strict_min_version: MIN_FIREFOX,
        data_collection_permissions: { required: ['browsingActivity'] }, // the URLs of video chunks go to Origo's log
      },
    },
  };
}
