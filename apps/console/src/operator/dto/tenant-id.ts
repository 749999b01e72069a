/** Tenant ids are slugs: they name the alarm topic `baton.alarms.<id>` and appear in URLs. */
export const TENANT_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
