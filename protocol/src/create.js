// Factories: the async part (loading the codec backend) happens here, once; the returned
// objects are fully synchronous.
import { UncodedSender } from './uncoded-sender.js';
import { CodedSender } from './coded-sender.js';
import { UncodedReceiver } from './uncoded-receiver.js';
import { CodedReceiver } from './coded-receiver.js';
import { loadCodec } from './codec.js';
import { codedError } from '@mutp/common/errors';

/**
 * @param {import('./sender-base.js').SenderOptions & {mode: 'uncoded'|'coded'}} opts
 * @returns {Promise<UncodedSender|CodedSender>}
 */
export async function createSender(opts) {
  if (opts.mode === 'uncoded') return new UncodedSender(opts);
  if (opts.mode === 'coded') return new CodedSender(opts, await loadCodec(opts.impl));
  throw codedError('ERR_BAD_PARAMS', `unknown mode ${opts.mode}`);
}

/**
 * @param {import('./receiver-base.js').ReceiverOptions} opts
 * @returns {Promise<UncodedReceiver|CodedReceiver>}
 */
export async function createReceiver(opts) {
  const mode = opts.meta && opts.meta.mode;
  if (mode === 'uncoded') return new UncodedReceiver(opts);
  if (mode === 'coded') return new CodedReceiver(opts, await loadCodec(opts.impl));
  throw codedError('ERR_BAD_PARAMS', `unknown mode ${mode}`);
}
