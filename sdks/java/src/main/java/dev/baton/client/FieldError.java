package dev.baton.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/** A field the console names in a refusal ({@code params.width}, {@code idempotencyKey}), and why. */
public record FieldError(String field, String reason) implements Serializable {
  /** The {@code errors} array of an error body; empty when there is none. */
  static List<FieldError> listOf(JsonNode errors) {
    List<FieldError> list = new ArrayList<>();
    for (JsonNode e : errors) list.add(new FieldError(e.path("field").asText(), e.path("reason").asText()));
    return List.copyOf(list);
  }
}
