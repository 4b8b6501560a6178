/**
 * What every platform shares above the app: one settings reader, one policy-sets builder. No platform
 * module: the Node server, Lambda, Workers and the CLI pass their environment, file and source constructors.
 *
 *   readSettings(table, env, problems, file?) → values       a table of Setting { variable, fileKey?, type, default, check? }
 *   readSettingsFile(text, table, sections, problems) → mapping      YAML or JSON, unknown keys reported
 *   integer(min, max?), seconds(max), text, list, oneOf(choices), optional(type)      setting types
 *   SettingsError(problems), assertNoProblems(problems)
 *   COMMON_SETTINGS, readCommonSettings(env, problems, file?) → CommonSettings   sources, refresh, clusters, limits, log level
 *   createPolicySets({ policySources, refreshSeconds, clusters, resolvers, platform, logger?, build? }) → PolicySets
 */
export {
  assertNoProblems,
  fileKeysOf,
  integer,
  list,
  oneOf,
  optional,
  readSettings,
  readSettingsFile,
  seconds,
  SettingsError,
  text,
  variablesOf,
  type Setting,
  type SettingsOf,
  type SettingsTable,
  type SettingType,
} from './settings.js';
export { CLUSTERS_SECTION, COMMON_SETTINGS, readCommonSettings, type CommonSettings } from './common-settings.js';
export { createPolicySets, type PolicySets, type PolicySetsOptions } from './policy-sets.js';
