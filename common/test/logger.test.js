import assert from 'node:assert/strict';
import { createLogger } from '@mutp/common/logger';

describe('logger (@mutp/common/logger)', () => {
  it('writes one line per event: time [name] LEVEL message {fields}', () => {
    /** @type {string[]} */
    const lines = [];
    const log = createLogger({ name: 'p-1', stream: { write: (t) => lines.push(t) } });
    log.info('started', { port: 8090 });
    log.warn('no fields');
    log.error('empty fields', {});
    assert.equal(lines.length, 3);
    assert.match(lines[0], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \[p-1\] INFO started \{"port":8090\}\n$/);
    assert.match(lines[1], /Z \[p-1\] WARN no fields\n$/);
    assert.match(lines[2], /Z \[p-1\] ERROR empty fields\n$/);
  });
});
