/**
 * @baton/config — the one schema of the `BATON_*` variables every Baton process reads (type,
 * default, processes, meaning), its loader (validated at start, unknown variables warned about),
 * and the generator of docs/CONFIGURATION.md.
 */
export * from './config-variable';
export { ConfigError } from './config-error';
export { PortInUseError, listenOrExplain } from './port-in-use-error';
export { CONFIG_VARIABLES, AUXILIARY_VARIABLES, variablesOf, knownVariableNames } from './schema';
export { ProcessConfig } from './process-config';
export { unknownVariableWarnings } from './unknown-variables';
export { defaultNodeId } from './node-id';
export { exitOnStartFailure } from './start-failure';
export { renderConfigurationDoc, CONFIGURATION_DOC_PATH, CONFIGURATION_DOC_COMMAND } from './configuration-doc';
export { retentionCeiling } from './retention-ceiling';
