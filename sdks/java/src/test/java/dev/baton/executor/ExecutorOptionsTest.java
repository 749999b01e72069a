package dev.baton.executor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

import java.util.List;
import java.util.Map;
import org.junit.Test;

public class ExecutorOptionsTest {
  @Test
  public void needsOnlyTheTenantAndItsSecretAndReadsTheRestAsTheNodeSdk() {
    ExecutorOptions o = ExecutorOptions.fromEnv(Map.of("BATON_TENANT", "acme", "BATON_EXECUTOR_SECRET", "s"));
    assertEquals(List.of("http://127.0.0.1:8080"), o.engineUrls);
    assertEquals("default", o.app);
    assertEquals(16, o.concurrency);
    assertEquals(1000, o.queueLimit);
    ExecutorOptions full = ExecutorOptions.fromEnv(Map.ofEntries(
        Map.entry("BATON_TENANT", "acme"), Map.entry("BATON_EXECUTOR_SECRET", "s"),
        Map.entry("BATON_ENGINE_URLS", " http://e1:1/ , https://e2 "), Map.entry("BATON_EXECUTOR_APP", "billing"),
        Map.entry("BATON_EXECUTOR_PORT", "8123"), Map.entry("BATON_EXECUTOR_CONCURRENCY", "16"),
        Map.entry("BATON_EXECUTOR_QUEUE_LIMIT", "7"), Map.entry("BATON_EXECUTOR_RETRY_BASE_MS", "50")));
    full.check();
    assertEquals(List.of("http://e1:1", "https://e2"), full.engineUrls);
    assertEquals("billing", full.app);
    assertEquals(8123, full.port);
    assertEquals(16, full.concurrency);
    assertEquals(7, full.queueLimit);
    assertEquals(50, full.retryBaseMs);
  }

  @Test
  public void namesTheVariableAndTheValueThatIsWrong() {
    expect(Map.of("BATON_EXECUTOR_SECRET", "s"), "BATON_TENANT is required: tenant id the executor serves.");
    expect(Map.of("BATON_TENANT", "a", "BATON_EXECUTOR_SECRET", "s", "BATON_EXECUTOR_PORT", "eighty"), "BATON_EXECUTOR_PORT=\"eighty\": must be a non-negative integer");
    expect(Map.of("BATON_TENANT", "a", "BATON_EXECUTOR_SECRET", "s", "BATON_ENGINE_URLS", "ftp://x"), "BATON_ENGINE_URLS=\"ftp://x\": \"ftp://x\" is not an http(s) URL (a comma-separated list of engine base URLs)");
  }

  private static void expect(Map<String, String> env, String message) {
    try {
      ExecutorOptions.fromEnv(env);
      fail("no error for " + env);
    } catch (ExecutorEnvException e) {
      assertEquals(message, e.getMessage());
    }
  }
}
