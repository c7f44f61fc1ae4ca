// The modes the e2e campaign draws from: the paper's three when the MUTP transport is
// available, else the two HTTP modes. MUTP_E2E_MODES (comma list) overrides.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MUTP_INDEX = fileURLToPath(new URL('../../../proxyclientlib/src/mutp/index.js', import.meta.url));

export function fleetModes() {
  const env = process.env.MUTP_E2E_MODES;
  if (env) return env.split(',').map((m) => m.trim()).filter(Boolean);
  return existsSync(MUTP_INDEX) ? ['parallel-http', 'uncoded', 'coded'] : ['parallel-http', 'range-http'];
}
