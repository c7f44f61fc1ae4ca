// The admin password: checked against a policy at start, then kept only as a scrypt hash.
import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { codedError } from '@mutp/common/errors';

/** Passwords refused outside --insecure-dev: empty, or the defaults every scanner tries first. */
export const DEFAULT_PASSWORDS = ['', 'admin', 'password', 'changeme', 'origo', '123456', 'secret'];
/** The password --insecure-dev uses when none is given; printed by `npm start`. */
export const INSECURE_DEV_PASSWORD = 'admin';
/** scrypt salt, bytes (NIST SP 800-132: at least 128 bits). */
const SALT_BYTES = 16;
/** scrypt output, bytes. */
const HASH_BYTES = 32;
/** Longest password accepted at login, characters: bounds the hashing work an attacker can ask for. */
export const MAX_PASSWORD_CHARS = 1024;

/**
 * @param {{ password: string | undefined, insecureDev?: boolean, logger: import('@mutp/common/logger').Logger }} opts
 * @returns {string} the password to hash
 */
export function checkPasswordPolicy({ password, insecureDev = false, logger }) {
  const weak = password === undefined || DEFAULT_PASSWORDS.includes(password.trim().toLowerCase());
  if (!weak) return /** @type {string} */ (password);
  if (!insecureDev) {
    throw codedError('ERR_ADMIN_PASSWORD', 'the admin password is empty or a default one: set ORIGO_ADMIN_PASSWORD (or --admin-password), or pass --insecure-dev for local use');
  }
  const effective = password ? password : INSECURE_DEV_PASSWORD;
  logger.warn('!!! INSECURE DEV MODE: the admin dashboard password is empty or a default one; never expose this Origo beyond your machine !!!',
    { password: effective === INSECURE_DEV_PASSWORD ? `"${INSECURE_DEV_PASSWORD}"` : '(default)' });
  return effective;
}

/**
 * Hashes the password once; `verify` compares a login attempt in constant time.
 * @param {string} password
 */
export function createPasswordVerifier(password) {
  const salt = randomBytes(SALT_BYTES);
  const hash = scryptSync(password, salt, HASH_BYTES);
  return {
    /** @param {unknown} attempt @returns {Promise<boolean>} */
    verify(attempt) {
      if (typeof attempt !== 'string' || attempt.length > MAX_PASSWORD_CHARS) return Promise.resolve(false);
      return new Promise((resolve, reject) => {
        scrypt(attempt, salt, HASH_BYTES, (err, derived) => (err ? reject(err) : resolve(timingSafeEqual(derived, hash))));
      });
    },
  };
}
