package dev.baton.executor;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The heartbeat's {@code handlerSchemas} by the protocol's bounds (the Node SDK's
 * handler-schemas.ts): a schema over 16 KB serialised, or one that would take the whole object
 * past 60 KB, stays behind (its tasks are saved unchecked) and is named in {@code leftOut}. An
 * engine refuses a heartbeat carrying one, so sending it would keep the executor from registering.
 */
record HandlerSchemas(ObjectNode schemas, List<String> leftOut) {
  static final int MAX_HANDLER_SCHEMA_BYTES = 16 * 1024;
  static final int MAX_HANDLER_SCHEMAS_BYTES = 60 * 1024;

  static HandlerSchemas of(Collection<TaskHandler> handlers) {
    ObjectNode kept = Json.object();
    List<String> leftOut = new ArrayList<>();
    int total = 2; // {}
    for (TaskHandler h : handlers) {
      if (h.paramsSchema() == null) continue;
      int bytes = Json.bytes(h.paramsSchema()).length;
      // What the entry adds to the serialised object: "name":schema, after a comma but for the first.
      int entry = (kept.isEmpty() ? 0 : 1) + Json.bytes(h.name()).length + 1 + bytes;
      if (bytes > MAX_HANDLER_SCHEMA_BYTES || total + entry > MAX_HANDLER_SCHEMAS_BYTES) {
        leftOut.add(h.name() + " (" + bytes + " bytes)");
        continue;
      }
      total += entry;
      kept.set(h.name(), h.paramsSchema());
    }
    return new HandlerSchemas(kept.isEmpty() ? null : kept, leftOut);
  }
}
