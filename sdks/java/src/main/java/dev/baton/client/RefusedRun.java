package dev.baton.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * A task an event matched whose run could not be made: its id, the status (400 the params made
 * from the payload do not fit the handler's schema; 404 the task was deleted meanwhile; 409 its
 * throttle's period is full) and the console's code, message and fields at fault.
 */
public record RefusedRun(long taskId, int status, String code, String message, List<FieldError> errors) {
  static RefusedRun from(JsonNode refused) {
    JsonNode error = refused.path("error");
    return new RefusedRun(refused.path("taskId").asLong(), refused.path("status").asInt(), error.path("code").asText(), error.path("message").asText(), FieldError.listOf(error.path("errors")));
  }
}
