package dev.baton.executor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.Test;

public class CallbackSpoolTest {
  private static CallbackSender.Entry entry(String key) {
    return new CallbackSender.Entry(key, List.of("http://127.0.0.1:8090"), ("{\"runId\":" + key.split(":")[0] + ",\"outcome\":\"SUCCEEDED\"}").getBytes(StandardCharsets.UTF_8));
  }

  @Test
  public void replaysWhatWasNotAcknowledgedAndSkipsATornLine() throws Exception {
    Path file = Files.createTempDirectory("baton-spool").resolve("spool.jsonl");
    CallbackSpool first = CallbackSpool.open(file, false);
    first.add(entry("1:1"));
    first.add(entry("2:1"));
    first.close(); // stopped with both pending: they stay in the file
    // What a process that went on would have appended: an acknowledgement, then a line a crash cut.
    Files.writeString(file, "{\"op\":\"done\",\"id\":\"1:1\"}\n{\"op\":\"add\",\"id\":\"3:1\",\"callb", StandardOpenOption.APPEND);
    CallbackSpool second = CallbackSpool.open(file, false);
    List<CallbackSender.Entry> pending = second.pending();
    assertEquals(1, pending.size());
    assertEquals("2:1", pending.get(0).key);
    assertEquals(List.of("http://127.0.0.1:8090"), pending.get(0).urls);
    assertEquals("{\"runId\":2,\"outcome\":\"SUCCEEDED\"}", new String(pending.get(0).json, StandardCharsets.UTF_8));
    second.remove("2:1");
    second.close();
    assertFalse("nothing pending: the file goes", Files.exists(file));
  }

  @Test
  public void aFileHeldByALiveExecutorIsNotSharedTheDefaultMovesToANumberedOne() throws Exception {
    Path file = Files.createTempDirectory("baton-spool").resolve("spool-demo.jsonl");
    CallbackSpool held = CallbackSpool.open(file, true);
    CallbackSpool next = CallbackSpool.open(file, true);
    assertNotEquals(held.file(), next.file());
    assertTrue(next.file().getFileName().toString().equals("spool-demo.2.jsonl"));
    try {
      CallbackSpool.open(file, false);
      throw new AssertionError("an explicit file held by another executor must not open");
    } catch (java.io.IOException expected) {
      assertTrue(expected.getMessage().contains("in use"));
    }
    held.close();
    next.close();
  }
}
