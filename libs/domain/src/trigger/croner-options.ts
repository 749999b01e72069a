/** How each croner job is made: matching wall times written in UTC, 5 or 6 fields (cron.ts says why). */
export const CRONER_OPTIONS = { timezone: 'UTC', mode: '5-or-6-parts' } as const;
