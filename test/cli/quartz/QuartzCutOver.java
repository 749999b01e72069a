import java.io.BufferedReader;
import java.io.InputStreamReader;
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
import org.quartz.Trigger.CompletedExecutionInstruction;
import org.quartz.TriggerListener;
import org.quartz.ScheduleBuilder;
import org.quartz.Scheduler;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.TriggerUtils;
import org.quartz.impl.StdSchedulerFactory;
import org.quartz.spi.OperableTrigger;

/**
 * A running clustered Quartz for test/cli/quartz-cut-over.e2e-spec.ts: creates Quartz's tables on
 * the given database (QuartzCatalogue.createTables), schedules a cron every second and a dozen
 * other triggers from the instant `start`, starts the scheduler and prints `STARTED`. Each fire
 * prints `FIRED <group>.<name> <its scheduled fire time, epoch ms>`. Commands on stdin:
 * `from <epoch ms>` (the cut-over instant, told once Quartz runs: registers StopsAfter for it,
 * schedules the triggers bounded around it, from the next whole second, then prints `FIRES <group>.<name> <epoch ms>,…` for
 * every trigger — the fire times Quartz computes for it as scheduled, from `start` to two minutes
 * after the instant, TriggerUtils.computeFireTimesBetween — and
 * `SCHEDULED`), `standby` (scheduler.standby(), then `STANDBY`), `shutdown` (or the end of
 * stdin): waits for the jobs running, and exits.
 *
 * usage: java QuartzCutOver <jdbc url> <user> <password> <table prefix> <scheduler name> <start ms>
 */
public class QuartzCutOver {
  /** Records its scheduled fire time: the instant the test counts. */
  public static class Record implements Job {
    public void execute(JobExecutionContext context) {
      Trigger t = context.getTrigger();
      say("FIRED " + t.getKey().getGroup() + "." + t.getKey().getName() + " " + context.getScheduledFireTime().getTime());
    }
  }

  /**
   * The cut-over's stop, as docs/MANUAL.md gives it: every fire scheduled after F is vetoed, so Quartz
   * makes its fires up to F and none after by itself, however late its standby comes (a test on a
   * loaded machine put it on standby 250 ms after F, past a fire Baton made too).
   */
  static class StopsAfter implements TriggerListener {
    private final long from;

    StopsAfter(long from) {
      this.from = from;
    }

    public String getName() {
      return "stops-after-cut-over";
    }

    public boolean vetoJobExecution(Trigger trigger, JobExecutionContext context) {
      return context.getScheduledFireTime().getTime() > from;
    }

    public void triggerFired(Trigger trigger, JobExecutionContext context) {}

    public void triggerMisfired(Trigger trigger) {}

    public void triggerComplete(Trigger trigger, JobExecutionContext context, CompletedExecutionInstruction instruction) {}
  }

  static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  public static void main(String[] args) throws Exception {
    String url = args[0], user = args[1], password = args[2], prefix = args[3], name = args[4];
    long start = Long.parseLong(args[5]);
    QuartzCatalogue.createTables(url, user, password, prefix);

    // A thread for every trigger, all of an instant's fires acquired at once (no fire waits for a thread); clustered.
    Properties p = QuartzCatalogue.jdbcStore(url, user, password, prefix, name, 16);
    p.setProperty("org.quartz.scheduler.batchTriggerAcquisitionMaxCount", "16");
    p.setProperty("org.quartz.scheduler.instanceId", "AUTO");
    p.setProperty("org.quartz.jobStore.isClustered", "true");
    p.setProperty("org.quartz.jobStore.clusterCheckinInterval", "5000");
    Scheduler scheduler = new StdSchedulerFactory(p).getScheduler();

    List<Trigger> triggers = new ArrayList<>(List.of(
      build("every-second", CronScheduleBuilder.cronSchedule("* * * * * ?").inTimeZone(TimeZone.getTimeZone("UTC")), start, null),
      build("cron-every-2s-kolkata", CronScheduleBuilder.cronSchedule("0/2 * * * * ?").inTimeZone(TimeZone.getTimeZone("Asia/Kolkata")), start, null),
      build("cron-3s-from-1-new-york", CronScheduleBuilder.cronSchedule("1/3 * * * * ?").inTimeZone(TimeZone.getTimeZone("America/New_York")), start, null),
      build("cron-4s-do-nothing", CronScheduleBuilder.cronSchedule("0/4 * * * * ?").inTimeZone(TimeZone.getTimeZone("UTC")).withMisfireHandlingInstructionDoNothing(), start, null),
      build("simple-1s", SimpleScheduleBuilder.simpleSchedule().withIntervalInMilliseconds(1_000).repeatForever(), start, null),
      build("simple-1500ms-phase-250", SimpleScheduleBuilder.simpleSchedule().withIntervalInMilliseconds(1_500).repeatForever(), start + 250, null),
      build("simple-ends-soon", SimpleScheduleBuilder.simpleSchedule().withIntervalInMilliseconds(1_000).repeatForever(), start, start + 4_500),
      build("calendar-2s", CalendarIntervalScheduleBuilder.calendarIntervalSchedule().withInterval(2, IntervalUnit.SECOND), start + 1_000, null),
      build("calendar-7s-berlin", CalendarIntervalScheduleBuilder.calendarIntervalSchedule().withInterval(7, IntervalUnit.SECOND).inTimeZone(TimeZone.getTimeZone("Europe/Berlin")), start, null),
      build("daily-time-every-2s", DailyTimeIntervalScheduleBuilder.dailyTimeIntervalSchedule().withInterval(2, IntervalUnit.SECOND), start, null)));
    for (Trigger t : triggers) schedule(scheduler, t);
    scheduler.start();
    say("STARTED");

    BufferedReader commands = new BufferedReader(new InputStreamReader(System.in));
    for (String command; (command = commands.readLine()) != null && !command.equals("shutdown"); ) {
      if (command.startsWith("from ")) {
        long from = Long.parseLong(command.substring(5));
        scheduler.getListenerManager().addTriggerListener(new StopsAfter(from));
        // From the next whole second (or the start): a start already past would have Quartz catch up at once.
        long begin = Math.max(start, (System.currentTimeMillis() / 1_000 + 1) * 1_000);
        List<Trigger> bounded = List.of(
          build("cron-5s-until-after-from", CronScheduleBuilder.cronSchedule("0/5 * * * * ?").inTimeZone(TimeZone.getTimeZone("Europe/Berlin")), begin, from + 7_000),
          build("simple-2500ms-until-after-from", SimpleScheduleBuilder.simpleSchedule().withIntervalInMilliseconds(2_500).withRepeatCount((int) ((from - begin) / 2_500) + 2), begin, null),
          build("one-shot-at-from", SimpleScheduleBuilder.simpleSchedule(), from, null),
          build("one-shot-after-from", SimpleScheduleBuilder.simpleSchedule(), from + 3_000, null));
        for (Trigger t : bounded) schedule(scheduler, t);
        triggers.addAll(bounded);
        for (Trigger t : triggers) {
          // From the trigger as scheduled, not as stored: the store's has moved past the fires made (computeFireTimesBetween lists from its next fire time on).
          OperableTrigger scheduled = (OperableTrigger) ((OperableTrigger) t).clone();
          scheduled.computeFirstFireTime(null);
          List<Date> fires = TriggerUtils.computeFireTimesBetween(scheduled, null, new Date(start), new Date(from + 120_000));
          StringBuilder line = new StringBuilder("FIRES ").append(t.getKey().getGroup()).append('.').append(t.getKey().getName()).append(' ');
          for (int i = 0; i < fires.size(); i++) line.append(i == 0 ? "" : ",").append(fires.get(i).getTime());
          say(line.toString());
        }
        say("SCHEDULED");
      } else if (command.equals("standby")) {
        scheduler.standby();
        say("STANDBY");
      }
    }
    scheduler.shutdown(true);
  }

  /** A job of its own for each trigger, named as it is. */
  static void schedule(Scheduler scheduler, Trigger t) throws Exception {
    JobDetail job = JobBuilder.newJob(Record.class).withIdentity(t.getKey().getName(), t.getKey().getGroup()).build();
    scheduler.scheduleJob(job, t);
  }

  static Trigger build(String name, ScheduleBuilder<? extends Trigger> schedule, long start, Long end) {
    TriggerBuilder<? extends Trigger> b = TriggerBuilder.newTrigger().withIdentity(name).startAt(new Date(start)).withSchedule(schedule);
    if (end != null) b = b.endAt(new Date(end));
    return b.build();
  }
}
