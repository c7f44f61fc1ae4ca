// Chromium: the extension's frame inside an HTTPS page is under the page's mixed-content rule
// (its offscreen document, where the fleet client normally runs, is not).
export const EXTENSION_FRAMES_UNDER_MIXED_CONTENT = true;
export const ENGINE_NAME = 'Chrome';
