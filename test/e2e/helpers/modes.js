// The modes the e2e campaign draws from. Default: the two HTTP modes; the MUTP modes are in the
// campaign only when MUTP_E2E_MODES names them (e.g. parallel-http,uncoded,coded), until the
// MUTP transport passes this suite in the browser (see the extension report).
export function fleetModes() {
  const env = process.env.MUTP_E2E_MODES;
  if (env) return env.split(',').map((m) => m.trim()).filter(Boolean);
  return ['parallel-http', 'range-http'];
}
