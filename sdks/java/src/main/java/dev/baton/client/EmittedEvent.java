package dev.baton.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * An event as stored: its id and name, the runs it started ({@code runIds}, empty when no task
 * listens to it), the matched tasks whose run could not be made ({@code refusedRuns}), and
 * {@code created} false when its idempotency key was used before — this is then the first event
 * sent under it, and nothing was started again.
 */
public record EmittedEvent(long id, String name, List<Long> runIds, boolean created, List<RefusedRun> refusedRuns) {
  static EmittedEvent from(JsonNode event) {
    List<Long> runIds = new ArrayList<>();
    for (JsonNode id : event.path("runIds")) runIds.add(id.asLong());
    List<RefusedRun> refused = new ArrayList<>();
    for (JsonNode r : event.path("refusedRuns")) refused.add(RefusedRun.from(r));
    return new EmittedEvent(event.path("id").asLong(), event.path("name").asText(), List.copyOf(runIds), event.path("created").asBoolean(), List.copyOf(refused));
  }
}
