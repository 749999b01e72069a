/**
 * The tenant filter of the console's queries, in one place: every query of a tenant's rows
 * builds its WHERE through here, so none can forget the tenant (tenant A never reads or writes
 * tenant B's rows, whatever id a request names). The operator's reads that may span tenants
 * say so by calling `anyTenant`; a read of tenant-owned rows that spans them on purpose says so in
 * its name (`…AcrossTenants`). The other queries that take no tenant read what belongs to none
 * (engine groups, engine nodes, the tenants table itself) or find the tenant from a credential
 * (a login name in its login tenant, an SSO subject, the hash of an API key or a session).
 */
export function ofTenant<W extends object>(tenantId: string, where: W): W & { tenantId: string } {
  return { ...where, tenantId };
}

/** An operator's read across tenants: optionally narrowed to one. */
export function anyTenant<W extends object>(tenantId: string | undefined, where: W): W | (W & { tenantId: string }) {
  return tenantId === undefined ? where : ofTenant(tenantId, where);
}
