/**
 * The tenant filter of the console's queries, in one place: every query of a tenant's rows
 * builds its WHERE through here, so none can forget the tenant (tenant A never reads or writes
 * tenant B's rows, whatever id a request names). The operator's cross-tenant reads are the only
 * ones that pass no tenant, and say so by calling `anyTenant`.
 */
export function ofTenant<W extends object>(tenantId: string, where: W): W & { tenantId: string } {
  return { ...where, tenantId };
}

/** An operator's read across tenants: optionally narrowed to one. */
export function anyTenant<W extends object>(tenantId: string | undefined, where: W): W | (W & { tenantId: string }) {
  return tenantId === undefined ? where : ofTenant(tenantId, where);
}
