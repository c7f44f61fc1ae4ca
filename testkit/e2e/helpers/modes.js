// The modes the e2e campaign draws from: the paper's three. MUTP_E2E_MODES (comma list) overrides.
export function fleetModes() {
  const env = process.env.MUTP_E2E_MODES;
  if (env) return env.split(',').map((m) => m.trim()).filter(Boolean);
  return ['parallel-http', 'uncoded', 'coded'];
}
