// The lint rule that keeps packages apart (eslint-rules/package-boundaries.js): a relative import
// may not leave its package or enter another one; @mutp/… through the package's exports may.
import { fileURLToPath } from 'node:url';
import { RuleTester } from 'eslint';
import rule from '../../eslint-rules/package-boundaries.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const at = (/** @type {string} */ rel) => `${ROOT}${rel}`;
/**
 * A relative path from a file two folders deep into another package's folder: the invalid cases
 * are built from it, so this file itself holds no such import for a repository scan to find.
 * @param {string} target e.g. 'origo/src/auth/client-ticket.js'
 */
const upTwo = (target) => `../../${target}`;
const tester = new RuleTester({ languageOptions: { ecmaVersion: 2024, sourceType: 'module' } });

tester.run('mutp/package-boundaries', rule, {
  valid: [
    { filename: at('proxy/test/x.test.js'), code: "import { a } from '../src/a.js';" },
    { filename: at('proxy/test/x.test.js'), code: "import { issueTicket } from '@mutp/origo/client-ticket';" },
    { filename: at('test/integration/x.test.js'), code: "import { run } from '../../fuzz/lib/harness.js';" }, // root folders are not packages
    { filename: at('extension/build/build.js'), code: "const m = await import('node:fs');" },
  ],
  invalid: [
    { filename: at('proxy/test/x.test.js'), code: `import { issueTicket } from '${upTwo('origo/src/auth/client-ticket.js')}';`, errors: [{ messageId: 'cross' }] },
    { filename: at('extension/bench/b.js'), code: `export { f } from '${upTwo('test/e2e/helpers/fleet.js')}';`, errors: [{ messageId: 'cross' }] },
    { filename: at('test/testbed/x.test.js'), code: `const t = await import('${upTwo('testbed/src/testbed.js')}');`, errors: [{ messageId: 'cross' }] },
    { filename: at('tls/test/x.test.js'), code: `/** @type {import('${upTwo('proxy/src/server.js')}').Proxy} */\nlet p;`, errors: [{ messageId: 'cross' }] },
  ],
});
