// A page that makes a <video> or <audio> element is about to play: the first one it parses or
// creates is the earliest sign, before its player script loads a manifest or makes a MediaSource.
const MEDIA = /^(video|audio)$/i;
const HAVE_FUTURE_DATA = 3; // HTMLMediaElement.readyState: a playing element has at least this

/**
 * @param {Document} doc
 * @param {() => void} onMedia  called once
 */
export function watchMediaElements(doc, onMedia) {
  let fired = false;
  /** @type {MutationObserver | null} */
  let observer = null;
  const fire = () => {
    if (fired) return;
    fired = true;
    observer?.disconnect();
    try {
      onMedia();
    } catch {
      // never break the page
    }
  };
  const origCreate = doc.createElement;
  doc.createElement = /** @type {any} */ (function createElement(/** @type {any[]} */ ...args) {
    const el = origCreate.apply(this, /** @type {any} */ (args));
    if (!fired && MEDIA.test(String(args[0]))) fire();
    return el;
  });
  // parsed from the HTML: watched until the page has loaded (later ones are created by script, or make a MediaSource)
  const hasMedia = (/** @type {Node} */ n) => n.nodeType === 1 && (MEDIA.test(n.nodeName) || /** @type {Element} */ (n).querySelector?.('video,audio') != null);
  observer = new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) if (hasMedia(n)) return fire();
    return undefined;
  });
  observer.observe(doc, { childList: true, subtree: true });
  if (doc.querySelector('video,audio')) fire();
  doc.defaultView?.addEventListener('load', () => observer?.disconnect(), { once: true });
}

/**
 * The first time any media element of the document begins playing, or at once when one already
 * plays (a fleet a site makes after its player started). `playing` does not bubble, but a
 * capturing listener on the document hears every element's.
 * @param {Document} doc
 * @param {() => void} onPlaying  called once
 */
export function watchFirstPlay(doc, onPlaying) {
  const capture = { capture: true };
  const on = () => {
    doc.removeEventListener('playing', on, capture);
    try {
      onPlaying();
    } catch {
      // never break the page
    }
  };
  doc.addEventListener('playing', on, capture);
  const media = /** @type {HTMLMediaElement[]} */ ([...(doc.querySelectorAll?.('video,audio') ?? [])]);
  if (media.some((m) => !m.paused && !m.ended && m.readyState >= HAVE_FUTURE_DATA)) on();
}
