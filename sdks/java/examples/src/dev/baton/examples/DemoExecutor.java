package dev.baton.examples;

import dev.baton.executor.BatonExecutor;
import dev.baton.executor.ExecutorOptions;
import dev.baton.executor.TaskHandler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The demo executor in Java (apps/demo-executor's handlers on the Java SDK), configured by the
 * BATON_* environment; app {@code demo} unless BATON_EXECUTOR_APP says otherwise. Prints
 * {@code READY <url>} on stdout once it listens. With BATON_DEMO_RECORD_FILE, appends a JSON line
 * per handler call ({@code runId}, {@code attempt}, {@code handler}, {@code pid}, {@code at}), as the
 * Node demo executor does for the cluster tests.
 */
public class DemoExecutor {
  public static void main(String[] args) {
    ExecutorOptions options = ExecutorOptions.fromEnv();
    if (System.getenv("BATON_EXECUTOR_APP") == null || System.getenv("BATON_EXECUTOR_APP").isBlank()) options.app("demo");
    BatonExecutor executor = new BatonExecutor(options);
    List<TaskHandler> handlers = TaskHandler.annotated(new DemoHandlers());
    String recordFile = System.getenv("BATON_DEMO_RECORD_FILE");
    for (TaskHandler h : handlers) executor.handler(recordFile == null || recordFile.isBlank() ? h : recorded(h, Path.of(recordFile)));
    executor.run();
    System.out.println("READY " + executor.url());
  }

  private static TaskHandler recorded(TaskHandler h, Path file) {
    return new TaskHandler(h.name(), ctx -> {
      String line = String.format("{\"runId\":%d,\"attempt\":%d,\"handler\":\"%s\",\"pid\":%d,\"at\":%d}%n", ctx.runId(), ctx.attempt(), ctx.handler(), ProcessHandle.current().pid(), System.currentTimeMillis());
      synchronized (DemoExecutor.class) {
        try {
          Files.writeString(file, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
          throw new IllegalStateException("record file " + file + ": " + e.getMessage(), e);
        }
      }
      return h.handler().run(ctx);
    }, h.paramsSchema());
  }
}
