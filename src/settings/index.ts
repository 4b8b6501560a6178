/**
 * One reader of settings for every platform: a table of settings (environment variable, config file key,
 * type, default, check), read from the environment and an optional YAML/JSON config file, every problem
 * collected with the variable or file key it came from. No platform module and no other folder of src/:
 * any layer reads its settings with it (src/runtime holds the table every platform shares).
 *
 *   readSettings(table, env, problems, file?) → values
 *   readSettingsFile(text, table, sections, problems) → mapping      unknown keys reported
 *   integer(min, max?), milliseconds(min), seconds(max), text, list, oneOf(choices), boolean, httpUrl, pathPrefix, optional(type)   setting types
 *   SettingsError(problems), assertNoProblems(problems), fileKeysOf(table), variablesOf(table)
 *   quoted(value)   a value as a problem quotes it (a long one cut, with its length)
 *   unknownVariables(env, known, prefix) → warnings   variables of the prefix no setting reads (a typo)
 */
export {
  assertNoProblems,
  boolean,
  fileKeysOf,
  httpUrl,
  integer,
  list,
  MAX_MILLISECONDS,
  milliseconds,
  oneOf,
  optional,
  quoted,
  pathPrefix,
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
} from './reader.js';
export { unknownVariables } from './unknown-variables.js';
