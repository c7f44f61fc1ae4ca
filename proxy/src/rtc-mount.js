import { fileURLToPath } from 'node:url';

// The WebRTC part lives in ./rtc/ (its own owner). Loaded by URL so the server runs and
// type-checks while that module does not exist yet.
const RTC_MODULE_URL = new URL('./rtc/index.js', import.meta.url);

/**
 * Mounts `POST /rtc/offer` and the data-channel senders when ./rtc/index.js exists.
 * @param {import('express').Express} app
 * @param {object} deps `{ objects, logs, stats, config, logger }`
 * @param {import('@mutp/common/logger').Logger} logger
 * @returns {Promise<{ close(): void | Promise<void> } | null>}
 */
export async function mountRtcIfPresent(app, deps, logger) {
  let mod;
  try {
    mod = await import(RTC_MODULE_URL.href);
  } catch (err) {
    // Only "this very file is missing" means "no WebRTC yet"; any other error is a real bug.
    if (err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes(fileURLToPath(RTC_MODULE_URL))) {
      logger.warn('WebRTC module not present; serving HTTP only');
      return null;
    }
    throw err;
  }
  return mod.mountRtc(app, deps);
}
