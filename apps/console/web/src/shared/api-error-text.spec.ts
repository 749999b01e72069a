import { afterEach, describe, expect, it } from 'vitest';
import { apiErrorText, fieldLabel } from './api-error-text';
import { i18n } from './i18n/i18n';

const refused = {
  statusCode: 400,
  code: 'VALIDATION_FAILED' as const,
  error: 'Bad Request',
  message: 'trigger.expression: expected 6 fields (seconds first) or 5; timeoutMs: must be at least 1',
  errors: [
    { field: 'trigger.expression', reason: 'expected 6 fields (seconds first) or 5' },
    { field: 'timeoutMs', reason: 'must be at least 1' },
    { field: 'somethingNew', reason: 'is not allowed' },
  ],
};

describe("the API's errors in the viewer's language", () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('keeps the API’s own message in English', async () => {
    await i18n.changeLanguage('en');
    expect(apiErrorText(refused)).toBe(refused.message);
  });

  it('translates the code and each field it knows in Chinese, keeping the API’s reason and an unknown field’s path', async () => {
    await i18n.changeLanguage('zh-CN');
    expect(apiErrorText(refused)).toBe('输入有误：Cron 表达式：expected 6 fields (seconds first) or 5；超时：must be at least 1；somethingNew：is not allowed');
    expect(apiErrorText({ statusCode: 404, code: 'NOT_FOUND', error: 'Not Found', message: 'task 9 not found' })).toBe('不存在（task 9 not found）');
    expect(fieldLabel('retry.jitter')).toBe('抖动');
  });
});
