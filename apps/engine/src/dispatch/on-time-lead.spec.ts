import { describe, expect, it } from 'vitest';
import { INITIAL_LEAD_MS, MAX_LEAD_MS, OnTimeLead } from './on-time-lead';

describe('OnTimeLead', () => {
  it('starts from a small lead, then follows the longest of the recent lane starts', () => {
    const lead = new OnTimeLead();
    expect(lead.ms).toBe(INITIAL_LEAD_MS);
    lead.record(3);
    lead.record(4.2);
    expect(lead.ms).toBe(5);
    lead.record(60); // the database slowed down under a burst
    expect(lead.ms).toBe(60);
  });

  it('forgets old starts: the lead comes back down once the burst is over', () => {
    const lead = new OnTimeLead();
    lead.record(70);
    for (let i = 0; i < 8; i++) lead.record(4);
    expect(lead.ms).toBe(4);
  });

  it(`never leads by more than ${MAX_LEAD_MS} ms`, () => {
    const lead = new OnTimeLead();
    lead.record(5_000);
    expect(lead.ms).toBe(MAX_LEAD_MS);
  });
});
