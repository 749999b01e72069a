package dev.baton.executor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/** The SDK's size rule (libs/executor-sdk/src/handler-schemas.spec.ts): 16 KB each, 60 KB for the whole object, to the byte. */
public class HandlerSchemasTest {
  private static TaskHandler withSchema(String name, int descriptionChars) {
    ObjectNode schema = Json.object().put("type", "object").put("description", "x".repeat(descriptionChars));
    return new TaskHandler(name, ctx -> null, schema);
  }

  @Test
  public void leavesOutASchemaOver16KbAndWhatWouldPass60Kb() {
    List<TaskHandler> handlers = new ArrayList<>(List.of(withSchema("huge", 16 * 1024)));
    for (int i = 1; i <= 5; i++) handlers.add(withSchema("h" + i, 15_000));
    HandlerSchemas s = HandlerSchemas.of(handlers);
    assertEquals(List.of("h1", "h2", "h3", "h4"), iterate(s.schemas()));
    assertEquals(2, s.leftOut().size());
    assertTrue(s.leftOut().get(0).matches("huge \\(\\d+ bytes\\)"));
    assertTrue(s.leftOut().get(1).matches("h5 \\(\\d+ bytes\\)"));
  }

  @Test
  public void keepsAnObjectOfExactly60Kb() {
    // Five schemas whose object serialises to exactly 60 KB are all sent; one byte more and the last stays behind.
    List<TaskHandler> exact = new ArrayList<>();
    for (int i = 0; i < 5; i++) exact.add(withSchema("h" + i, 0));
    int overhead = Json.bytes(HandlerSchemas.of(exact).schemas()).length;
    int room = HandlerSchemas.MAX_HANDLER_SCHEMAS_BYTES - overhead;
    exact.clear();
    for (int i = 0; i < 5; i++) exact.add(withSchema("h" + i, room / 5 + (i < room % 5 ? 1 : 0)));
    assertEquals(HandlerSchemas.MAX_HANDLER_SCHEMAS_BYTES, Json.bytes(HandlerSchemas.of(exact).schemas()).length);
    exact.set(4, withSchema("h4", room / 5 + 1 + (4 < room % 5 ? 1 : 0)));
    assertEquals(List.of("h0", "h1", "h2", "h3"), iterate(HandlerSchemas.of(exact).schemas()));
  }

  private static List<String> iterate(ObjectNode o) {
    List<String> names = new ArrayList<>();
    o.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
