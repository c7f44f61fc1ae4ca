// The proxy's Origo setting: one URL, or several Origos of one service (PostgreSQL-backed) separated by commas.

/**
 * The Origo URLs of a setting: one URL, or several of one service separated by commas.
 * @param {string} setting
 * @returns {string[]}
 */
export function origoUrlList(setting) {
  return setting.split(',').map((u) => u.trim()).filter((u) => u !== '');
}
