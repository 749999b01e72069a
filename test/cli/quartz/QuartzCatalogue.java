import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Properties;
import java.util.TimeZone;
import org.quartz.CalendarIntervalScheduleBuilder;
import org.quartz.CronScheduleBuilder;
import org.quartz.DailyTimeIntervalScheduleBuilder;
import org.quartz.DateBuilder.IntervalUnit;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.Scheduler;
import org.quartz.ScheduleBuilder;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.TimeOfDay;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.TriggerKey;
import org.quartz.TriggerUtils;
import org.quartz.impl.StdSchedulerFactory;
import org.quartz.impl.calendar.HolidayCalendar;
import org.quartz.spi.OperableTrigger;

/**
 * A catalogue of Quartz triggers on a JDBC JobStore (MariaDB), for test/cli/import-quartz.e2e-spec.ts:
 * creates Quartz's own tables (tables_mysql_innodb.sql from the Quartz jar, under the given table
 * prefix), schedules every trigger below without starting the scheduler (nothing fires, nothing
 * moves), then prints one line per trigger: `FIRES <group>.<name> <epoch ms>,<epoch ms>,…`, the
 * next 100 fire times real Quartz computes for it (TriggerUtils.computeFireTimes on the trigger
 * as the store gives it back, with its calendar).
 *
 * usage: java QuartzCatalogue <jdbc url> <user> <password> <table prefix> <scheduler name>
 */
public class QuartzCatalogue {
  /** Never runs: the scheduler is not started. */
  public static class ReportJob implements Job {
    public void execute(JobExecutionContext context) {}
  }

  public static class CleanupJob implements Job {
    public void execute(JobExecutionContext context) {}
  }

  /** Next year's: every date of the catalogue is in the future, whenever the test runs. */
  static final int YEAR = java.time.Year.now(java.time.ZoneOffset.UTC).getValue() + 1;
  /** Next year's first two daylight-saving changes in Berlin and New York (spring, autumn) and Lord Howe Island (autumn, spring: a half-hour shift). */
  static final Instant[] BERLIN = changes("Europe/Berlin"), NEW_YORK = changes("America/New_York"), LORD_HOWE = changes("Australia/Lord_Howe");
  /** Most triggers start 8 days before Berlin's spring change, at midnight UTC. */
  static final Instant START_INSTANT = BERLIN[0].minus(java.time.Duration.ofDays(8)).truncatedTo(java.time.temporal.ChronoUnit.DAYS);
  static final Date START = Date.from(START_INSTANT);

  static Instant[] changes(String zone) {
    java.time.zone.ZoneRules rules = java.time.ZoneId.of(zone).getRules();
    Instant spring = rules.nextTransition(Instant.parse(YEAR + "-01-01T00:00:00Z")).getInstant();
    return new Instant[] {spring, rules.nextTransition(spring).getInstant()};
  }

  static String plus(Instant base, long hours) {
    return base.plus(java.time.Duration.ofHours(hours)).toString();
  }

  public static void main(String[] args) throws Exception {
    String url = args[0], user = args[1], password = args[2], prefix = args[3], name = args[4];
    createTables(url, user, password, prefix);

    Scheduler scheduler = new StdSchedulerFactory(jdbcStore(url, user, password, prefix, name, 1)).getScheduler();

    HolidayCalendar holidays = new HolidayCalendar();
    holidays.setTimeZone(TimeZone.getTimeZone("Europe/Berlin"));
    for (int days : new int[] {4, 5, 13}) {
      java.time.LocalDate day = START_INSTANT.atZone(java.time.ZoneId.of("Europe/Berlin")).toLocalDate().plusDays(days);
      java.util.Calendar c = java.util.Calendar.getInstance(TimeZone.getTimeZone("Europe/Berlin"));
      c.clear();
      c.set(day.getYear(), day.getMonthValue() - 1, day.getDayOfMonth());
      holidays.addExcludedDate(c.getTime());
    }
    scheduler.addCalendar("holidays", holidays, false, false);

    List<Trigger> triggers = new ArrayList<>();
    // Cron: time zones, DST (next year's changes in Berlin, New York and Lord Howe), L, W, #, month ends, leap days.
    triggers.add(cron("quarter-hour-berlin", "0 0/15 * * * ?", "Europe/Berlin", plus(BERLIN[0], -5), null));
    triggers.add(cron("daily-0230-berlin", "0 30 2 * * ?", "Europe/Berlin", null, null));
    triggers.add(cron("daily-0130-new-york", "0 30 1 * * ?", "America/New_York", plus(NEW_YORK[1], -18 * 24), null));
    triggers.add(cron("hourly-new-york", "0 0 * * * ?", "America/New_York", plus(NEW_YORK[1], -18), null));
    triggers.add(cron("ten-minutes-lord-howe-back", "0 0/10 * * * ?", "Australia/Lord_Howe", plus(LORD_HOWE[0], -2), null));
    triggers.add(cron("ten-minutes-lord-howe-forward", "0 0/10 * * * ?", "Australia/Lord_Howe", plus(LORD_HOWE[1], -2), null));
    triggers.add(cron("daily-0145-lord-howe", "0 45 1 * * ?", "Australia/Lord_Howe", plus(LORD_HOWE[0], -48), null));
    triggers.add(cron("daily-0215-lord-howe", "0 15 2 * * ?", "Australia/Lord_Howe", plus(LORD_HOWE[1], -48), null));
    triggers.add(cron("month-end-utc", "0 0 12 L * ?", "UTC", null, null));
    triggers.add(cron("last-weekday-tokyo", "0 0 9 LW * ?", "Asia/Tokyo", null, null));
    triggers.add(cron("nearest-weekday-15th-london", "0 0 9 15W * ?", "Europe/London", null, null));
    triggers.add(cron("nearest-weekday-31st-new-york", "0 0 9 31W * ?", "America/New_York", null, null));
    triggers.add(cron("quarter-end-weekday-utc", "0 0 17 31W 3,6,9,12 ?", "UTC", null, null));
    triggers.add(cron("last-friday-berlin", "0 0 18 ? * 6L", "Europe/Berlin", null, null));
    triggers.add(cron("first-monday-chicago", "0 0 8 ? * 2#1", "America/Chicago", null, null));
    triggers.add(cron("weekdays-paris", "0 15 10 ? * MON-FRI", "Europe/Paris", null, null));
    triggers.add(cron("every-other-day-of-week", "0 0 3 ? * 1/2", "Europe/Berlin", null, null));
    triggers.add(cron("leap-day-for-33-years", "0 0 12 29 2 ?", "UTC", null, (YEAR + 33) + "-01-01T00:00:00Z"));
    triggers.add(cron("new-year-for-3-years", "0 0 6 1 1 ? " + (YEAR + 1) + "-" + (YEAR + 3), "Europe/Berlin", null, null));
    triggers.add(cron("hourly-until-inclusive-end", "0 0 * * * ?", "UTC", null, plus(START_INSTANT, 29)));
    triggers.add(cron("three-days-before-month-end", "0 0 12 L-3 * ?", "UTC", null, null));
    triggers.add(withCalendar(cron("weekdays-except-holidays", "0 0 7 ? * MON-FRI", "Europe/Berlin", null, null), "holidays"));
    // Simple: intervals, repeat counts, exclusive end times, one-shots.
    triggers.add(simple("every-90s", 90_000, REPEAT_FOREVER, BERLIN[0].minusSeconds(1800).toString(), null));
    triggers.add(simple("hourly-10-repeats", 3_600_000, 10, null, null));
    triggers.add(simple("quarter-hour-until-end", 900_000, REPEAT_FOREVER, null, plus(START_INSTANT, 12)));
    triggers.add(simple("one-shot", 0, 0, START_INSTANT.plusMillis(12 * 86_400_000L + 9 * 3_600_000L + 250).toString(), null));
    triggers.add(simple("every-50ms", 50, REPEAT_FOREVER, null, null));
    // Calendar-interval and daily-time-interval triggers.
    triggers.add(other("every-2-hours-calendar", CalendarIntervalScheduleBuilder.calendarIntervalSchedule().withInterval(2, IntervalUnit.HOUR).inTimeZone(TimeZone.getTimeZone("Europe/Berlin")), null));
    triggers.add(other("monthly-calendar-31st", CalendarIntervalScheduleBuilder.calendarIntervalSchedule().withInterval(1, IntervalUnit.MONTH).inTimeZone(TimeZone.getTimeZone("UTC")), YEAR + "-01-31T08:00:00Z"));
    triggers.add(other("daily-calendar-0230-berlin", CalendarIntervalScheduleBuilder.calendarIntervalSchedule().withInterval(1, IntervalUnit.DAY).inTimeZone(TimeZone.getTimeZone("Europe/Berlin")), plus(START_INSTANT, 1)));
    triggers.add(other("weekly-calendar-interval", CalendarIntervalScheduleBuilder.calendarIntervalSchedule().withInterval(1, IntervalUnit.WEEK).inTimeZone(TimeZone.getTimeZone("America/New_York")), plus(START_INSTANT, 14)));
    triggers.add(other("office-hours-every-20-min", DailyTimeIntervalScheduleBuilder.dailyTimeIntervalSchedule()
        .startingDailyAt(TimeOfDay.hourAndMinuteOfDay(9, 0)).endingDailyAt(TimeOfDay.hourAndMinuteOfDay(17, 0))
        .onMondayThroughFriday().withInterval(20, IntervalUnit.MINUTE), null));
    // Misfire instructions other than the smart policy; priorities.
    triggers.add(other("do-nothing-on-misfire", CronScheduleBuilder.cronSchedule("0 0 1 * * ?").inTimeZone(TimeZone.getTimeZone("UTC")).withMisfireHandlingInstructionDoNothing(), null));
    triggers.add(other("ignore-misfires", CronScheduleBuilder.cronSchedule("0 0 2 * * ?").inTimeZone(TimeZone.getTimeZone("UTC")).withMisfireHandlingInstructionIgnoreMisfires(), null));
    triggers.add(other("simple-next-with-remaining", SimpleScheduleBuilder.simpleSchedule().withIntervalInMilliseconds(600_000).withRepeatCount(5).withMisfireHandlingInstructionNextWithRemainingCount(), null));

    for (Trigger t : triggers) {
      Class<? extends Job> jobClass = t.getKey().getName().startsWith("every") ? CleanupJob.class : ReportJob.class;
      JobDetail job = JobBuilder.newJob(jobClass).withIdentity(t.getKey().getName(), t.getKey().getGroup())
          .usingJobData("region", "eu").usingJobData("batch", 500).usingJobData("dryRun", false).usingJobData("ratio", 0.25)
          .build();
      scheduler.scheduleJob(job, t);
    }
    // A job with two triggers (the second in a paused group), a paused trigger, and a durable job with none.
    // Its data holds what Java's modified UTF-8 writes apart from UTF-8 (a character beyond U+FFFF as two 3-byte surrogates, NUL as C0 80) and a secret-named value.
    JobDetail shared = JobBuilder.newJob(ReportJob.class).withIdentity("shared-report", "reports").usingJobData("format", "pdf")
        .usingJobData("message", "deploy \uD83D\uDE80 done").usingJobData("separator", "\u0000").usingJobData("dbPassword", "s3cret").build();
    Trigger morning = TriggerBuilder.newTrigger().withIdentity("morning", "reports").forJob(shared).startAt(START)
        .withSchedule(CronScheduleBuilder.cronSchedule("0 0 6 * * ?").inTimeZone(TimeZone.getTimeZone("Europe/Berlin"))).withPriority(7).build();
    Trigger evening = TriggerBuilder.newTrigger().withIdentity("evening", "paused-group").forJob(shared).startAt(START)
        .usingJobData("format", "csv").withSchedule(CronScheduleBuilder.cronSchedule("0 0 18 * * ?").inTimeZone(TimeZone.getTimeZone("Europe/Berlin"))).build();
    scheduler.scheduleJob(shared, morning);
    scheduler.scheduleJob(evening);
    scheduler.pauseTriggers(org.quartz.impl.matchers.GroupMatcher.triggerGroupEquals("paused-group"));
    scheduler.pauseTrigger(TriggerKey.triggerKey("weekdays-paris"));
    scheduler.addJob(JobBuilder.newJob(CleanupJob.class).withIdentity("run-by-hand").storeDurably().build(), false);
    triggers.add(morning);
    triggers.add(evening);

    for (Trigger t : triggers) {
      OperableTrigger stored = (OperableTrigger) scheduler.getTrigger(t.getKey());
      org.quartz.Calendar cal = stored.getCalendarName() == null ? null : scheduler.getCalendar(stored.getCalendarName());
      List<Date> fires = TriggerUtils.computeFireTimes(stored, cal, 100);
      StringBuilder line = new StringBuilder("FIRES ").append(t.getKey().getGroup()).append('.').append(t.getKey().getName()).append(' ');
      for (int i = 0; i < fires.size(); i++) line.append(i == 0 ? "" : ",").append(fires.get(i).getTime());
      System.out.println(line);
    }
    scheduler.shutdown();
  }

  static final int REPEAT_FOREVER = org.quartz.SimpleTrigger.REPEAT_INDEFINITELY;

  static Date at(String iso) {
    return iso == null ? START : Date.from(Instant.parse(iso));
  }

  static Trigger cron(String name, String expression, String zone, String start, String end) {
    return build(name, CronScheduleBuilder.cronSchedule(expression).inTimeZone(TimeZone.getTimeZone(zone)), start, end);
  }

  static Trigger simple(String name, long intervalMs, int repeatCount, String start, String end) {
    SimpleScheduleBuilder s = SimpleScheduleBuilder.simpleSchedule().withIntervalInMilliseconds(intervalMs);
    s = repeatCount < 0 ? s.repeatForever() : s.withRepeatCount(repeatCount);
    return build(name, s, start, end);
  }

  static Trigger other(String name, ScheduleBuilder<? extends Trigger> schedule, String start) {
    return build(name, schedule, start, null);
  }

  static Trigger build(String name, ScheduleBuilder<? extends Trigger> schedule, String start, String end) {
    TriggerBuilder<? extends Trigger> b = TriggerBuilder.newTrigger().withIdentity(name).startAt(at(start)).withSchedule(schedule);
    if (end != null) b = b.endAt(Date.from(Instant.parse(end)));
    return b.build();
  }

  static Trigger withCalendar(Trigger t, String calendar) {
    return t.getTriggerBuilder().modifiedByCalendar(calendar).build();
  }

  /** A scheduler of `threads` threads on a JDBC JobStore (JobStoreTX) of the given database, table prefix and scheduler name. */
  static Properties jdbcStore(String url, String user, String password, String prefix, String name, int threads) {
    Properties p = new Properties();
    p.setProperty("org.quartz.scheduler.instanceName", name);
    p.setProperty("org.quartz.threadPool.threadCount", String.valueOf(threads));
    p.setProperty("org.quartz.jobStore.class", "org.quartz.impl.jdbcjobstore.JobStoreTX");
    p.setProperty("org.quartz.jobStore.driverDelegateClass", "org.quartz.impl.jdbcjobstore.StdJDBCDelegate");
    p.setProperty("org.quartz.jobStore.tablePrefix", prefix);
    p.setProperty("org.quartz.jobStore.dataSource", "ds");
    p.setProperty("org.quartz.dataSource.ds.provider", "hikaricp");
    p.setProperty("org.quartz.dataSource.ds.driver", "org.mariadb.jdbc.Driver");
    p.setProperty("org.quartz.dataSource.ds.URL", url);
    p.setProperty("org.quartz.dataSource.ds.user", user);
    p.setProperty("org.quartz.dataSource.ds.password", password);
    // At least the worker threads plus three, as Quartz's DataSource documentation recommends.
    p.setProperty("org.quartz.dataSource.ds.maxConnections", String.valueOf(threads + 3));
    return p;
  }

  /** Quartz's own DDL for MySQL/InnoDB, under the table prefix asked for. */
  static void createTables(String url, String user, String password, String prefix) throws Exception {
    String ddl;
    try (InputStream in = org.quartz.impl.jdbcjobstore.StdJDBCDelegate.class.getResourceAsStream("/org/quartz/impl/jdbcjobstore/tables_mysql_innodb.sql")) {
      ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement()) {
      for (String statement : ddl.replaceAll("(?m)^#.*$", "").split(";")) {
        String sql = statement.trim();
        if (sql.isEmpty() || sql.equalsIgnoreCase("commit")) continue;
        s.execute(sql.replace("QRTZ_", prefix));
      }
    }
  }
}
