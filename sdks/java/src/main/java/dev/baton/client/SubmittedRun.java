package dev.baton.client;

import com.fasterxml.jackson.databind.JsonNode;

/** A run as the console answers it: the fields a submitter needs ({@code state} PENDING for a run just made; {@code createdAt} epoch ms). */
public record SubmittedRun(long id, long taskId, String state, long createdAt) {
  static SubmittedRun from(JsonNode run) {
    return new SubmittedRun(run.path("id").asLong(), run.path("taskId").asLong(), run.path("state").asText(), run.path("createdAt").asLong());
  }
}
