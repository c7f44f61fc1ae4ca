// This extension's own window with the given page, found among its views (same process only).

/** @param {string} file @returns {Window | null} */
export function homeView(file) {
  const views = /** @type {any} */ (globalThis).chrome?.extension?.getViews?.() ?? [];
  return views.find((/** @type {Window} */ v) => {
    try {
      return v.location.pathname === `/${file}`;
    } catch {
      return false; // not readable: not ours
    }
  }) ?? null;
}
