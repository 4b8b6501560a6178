/**
 * What every platform shares above the app: the settings they all read (a table for the reader of
 * src/settings) and one policy-sets builder. No platform module: the Node server, Lambda and Workers pass
 * their environment, file and source constructors.
 *
 *   COMMON_SETTINGS, readCommonSettings(env, problems, file?) → CommonSettings   sources, refresh, clusters, limits, log level
 *   createPolicySets({ policySources, refreshSeconds, clusters, resolvers, platform, logger?, build?, beforeApply? }) → PolicySets
 */
export { CLUSTERS_SECTION, COMMON_SETTINGS, readCommonSettings, type CommonSettings } from './common-settings.js';
export { createPolicySets, type PolicySets, type PolicySetsOptions } from './policy-sets.js';
