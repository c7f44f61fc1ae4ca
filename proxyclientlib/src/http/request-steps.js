// The steps of an HTTP-mode download before its first byte, for its record's time breakdown
// (docs/log-record.md, requestSteps): the first proxy answer in (Range-split HTTP: its digest list;
// Parallel HTTP: its response head), what that proxy said the request waited for there, and when
// the vote let the ranges go.

/**
 * @param {() => number} elapsed  ms since the download's start
 */
export function createRequestSteps(elapsed) {
  /** @type {{answerMs: number | null, originMs: number | null, prepareMs: number | null, decidedMs: number | null}} */
  const steps = { answerMs: null, originMs: null, prepareMs: null, decidedMs: null };
  return {
    /** A proxy's answer is in; the first one counts. @param {{originMs: number, prepareMs: number} | null} wait */
    answered(wait) {
      if (steps.answerMs !== null) return;
      steps.answerMs = elapsed();
      steps.originMs = wait?.originMs ?? null;
      steps.prepareMs = wait?.prepareMs ?? null;
    },
    /** The vote decided what the first bytes need. */
    decided() {
      steps.decidedMs ??= elapsed();
    },
    value: () => ({ ...steps }),
  };
}
