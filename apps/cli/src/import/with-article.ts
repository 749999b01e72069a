/** The noun after "a" or "an", by its first letter, as a note names a class (an AnnualCalendar, a CronCalendar, an org.acme.Report). */
export function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
}
