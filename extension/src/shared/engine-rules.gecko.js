// Firefox: requests from a moz-extension: frame are not subject to the page's mixed-content rule.
export const EXTENSION_FRAMES_UNDER_MIXED_CONTENT = false;
export const ENGINE_NAME = 'Firefox';
