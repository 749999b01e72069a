package dev.baton.examples;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.client.BatonApiException;
import dev.baton.client.BatonClient;
import dev.baton.client.Event;
import dev.baton.client.TriggerRequest;
import dev.baton.client.TriggerResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A service that submits work to Baton: one event (sent twice under one idempotency key) and one
 * run of a task, then a run under a malformed key, then 20 runs submitted at once ({@code submit}:
 * sent together) and one under a malformed key, through the console's API with a tenant API key. BATON_API_URL, BATON_API_KEY, BATON_TASK_ID; prints each answer or refusal as a JSON line
 * (the Java client's end-to-end test, test/protocol/java-client.e2e-spec.ts, reads them).
 */
public class SubmitWork {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    BatonClient baton = new BatonClient(System.getenv("BATON_API_URL"), System.getenv("BATON_API_KEY"));
    long taskId;
    try {
      taskId = Long.parseLong(System.getenv("BATON_TASK_ID"));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("BATON_TASK_ID: a task's id is needed, not " + System.getenv("BATON_TASK_ID"), e);
    }

    Event paid = Event.of("order.paid", Map.of("order", Map.of("id", 42))).withIdempotencyKey("java-paid-42");
    report("event", () -> baton.emitEvent(paid));
    report("event again", () -> baton.emitEvent(paid));
    report("trigger", () -> baton.trigger(taskId, TriggerRequest.of(Map.of("width", 3)).withIdempotencyKey("java-run-1")));
    report("bad key", () -> baton.trigger(taskId, TriggerRequest.of(Map.of("width", 3)).withIdempotencyKey("not a key")));

    // Submitted one at a time, without waiting: each answered on its own, the runs sent together.
    List<CompletableFuture<TriggerResult>> submitted = new ArrayList<>();
    for (int i = 0; i < 20; i++) submitted.add(baton.submit(taskId, TriggerRequest.of(Map.of("width", i)).withIdempotencyKey("java-submit-" + i)));
    for (int i = 0; i < 20; i++) {
      CompletableFuture<TriggerResult> made = submitted.get(i);
      int width = i;
      report("submit", () -> Map.of("run", joined(made).run(), "created", joined(made).created(), "width", width));
    }
    CompletableFuture<TriggerResult> bad = baton.submit(taskId, TriggerRequest.of(Map.of("width", 3)).withIdempotencyKey("not a key"));
    report("submit bad key", () -> joined(bad));
  }

  /** A future's value; its refusal thrown as it is (a CompletionException's cause). */
  private static <T> T joined(CompletableFuture<T> future) {
    try {
      return future.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof BatonApiException refused) throw refused;
      throw e;
    }
  }

  private interface Call {
    Object answer() throws InterruptedException;
  }

  /** One line: the answer, or the refusal's status, code, message and fields; anything else ends the program. */
  private static void report(String what, Call call) throws Exception {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("what", what);
    try {
      line.put("answer", call.answer());
    } catch (BatonApiException refused) {
      line.put("status", refused.status());
      line.put("code", refused.code());
      line.put("message", refused.message());
      line.put("errors", refused.errors());
    }
    System.out.println(JSON.writeValueAsString(line));
  }
}
