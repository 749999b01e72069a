/** One change made through the console API, as GET /api/audit answers it. */
export interface AuditRecord {
  id: number;
  at: number;
  tenantId: string | null;
  actor: {
    kind: 'user' | 'apiKey' | 'anonymous' | 'inboundWebhook' | 'engine';
    /** Username, `api-key:<name>`, or the name a failed login gave. */
    name: string;
    userId: number | null;
    apiKeyId: number | null;
    address: string | null;
  };
  /** `<object>.<verb>`: `task.update`, `auth.login-failed`… */
  action: string;
  objectType: string;
  objectId: string | null;
  /** The object before and after the change, secrets redacted. */
  before: unknown;
  after: unknown;
}
