// Browser: its network stack returns the connection to its pool itself; nothing to wait for.
// Chosen by the "browser" condition of the "#http-turn" import.

/** @returns {Promise<void>} */
export async function yieldToHttpClient() {}
