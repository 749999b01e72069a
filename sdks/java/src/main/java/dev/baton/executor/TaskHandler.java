package dev.baton.executor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * A named handler and, optionally, a JSON schema of its params: sent with every heartbeat, the
 * console shows it in the task editor and refuses to save a task whose params do not fit.
 */
public record TaskHandler(String name, Handler handler, ObjectNode paramsSchema) {
  public TaskHandler {
    Objects.requireNonNull(handler, "handler");
    if (name == null || name.isBlank()) throw new IllegalArgumentException("a handler needs a name");
  }

  /** With a schema given as JSON text: it must be a JSON object. */
  public static TaskHandler of(String name, String paramsSchema, Handler handler) {
    return new TaskHandler(name, handler, schemaObject(name, paramsSchema));
  }

  /** The public {@link BatonHandler} methods of {@code bean}, as handlers called on it. */
  public static java.util.List<TaskHandler> annotated(Object bean) {
    return AnnotatedHandlers.of(bean);
  }

  static ObjectNode schemaObject(String name, String paramsSchema) {
    if (paramsSchema == null || paramsSchema.isBlank()) return null;
    JsonNode node = Json.parse(paramsSchema);
    if (!node.isObject()) throw new IllegalArgumentException("handler \"" + name + "\": paramsSchema must be a JSON object");
    return (ObjectNode) node;
  }
}
