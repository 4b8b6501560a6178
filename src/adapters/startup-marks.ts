/**
 * Marks of a Node cold start on the performance timeline (performance.mark; a few microseconds each), so
 * that a slow start can be located: the bundle's modules evaluated, the server listening, the policy
 * sets loaded. bench/suites/60-cold-start.ts prints them as the phases of each start; any tool reading
 * `performance.getEntriesByType('mark')` in the process sees them too.
 */
export const STARTUP_MARKS = {
  modulesLoaded: 'amender:modules-loaded',
  listening: 'amender:listening',
  policiesReady: 'amender:policies-ready',
} as const;

export function markStartup(name: keyof typeof STARTUP_MARKS): void {
  performance.mark(STARTUP_MARKS[name]);
}
