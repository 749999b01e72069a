package dev.baton.executor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import org.junit.Test;

public class LogTailTest {
  @Test
  public void keepsTheLastLinesAndSaysHowManyWentUnsent() {
    LogTail tail = new LogTail(3, 32_768, 4096);
    for (int i = 1; i <= 5; i++) tail.write("info", "line " + i, i);
    ArrayNode lines = tail.json();
    assertEquals(4, lines.size());
    assertTrue(lines.get(0).get("message").asText().startsWith("[baton] log truncated: 2 earlier line(s) dropped"));
    assertEquals("line 3", lines.get(1).get("message").asText());
  }

  @Test
  public void forgetsWhatAnEngineTookAndNothingElse() {
    LogTail tail = new LogTail(200, 32_768, 4096);
    tail.write("info", "a", 1);
    long mark = tail.mark();
    tail.write("info", "b", 2); // written while the interim callback was on its way
    tail.delivered(mark);
    ArrayNode lines = tail.json();
    assertEquals(1, lines.size());
    assertEquals("b", lines.get(0).get("message").asText());
  }

  @Test
  public void cutsALongLineOnACharacterBoundary() {
    LogTail tail = new LogTail(200, 32_768, 32);
    tail.write("warn", "é".repeat(40), 1);
    String message = tail.json().get(0).get("message").asText();
    assertTrue(message.endsWith("… [truncated]"));
    assertTrue(Json.utf8Length(message) <= 32);
  }
}
