import { PACKAGE_VERSION } from '../internal/package-version.js';

/** mcpkit's version, from its package.json. */
export const CLI_VERSION: string = PACKAGE_VERSION;
