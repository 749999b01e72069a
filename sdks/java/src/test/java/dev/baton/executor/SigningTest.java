package dev.baton.executor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.Test;

public class SigningTest {
  private static final byte[] BODY = "{\"runId\":7,\"note\":\"é\"}".getBytes(StandardCharsets.UTF_8);
  private static final long AT = 1732240000000L;

  @Test
  public void signsAsLibsProtocolDoes() {
    // The vector: libs/protocol's sign('s3cret', 'acme', 'POST', '/baton/runs', body, 1732240000000) (Node's crypto).
    Map<String, String> h = Signing.sign("s3cret", "acme", "post", "/baton/runs", BODY, AT);
    assertEquals("acme", h.get(Signing.TENANT));
    assertEquals("1732240000000", h.get(Signing.TIMESTAMP));
    assertEquals("666cc0ac0f40e9a69086bf79dc4b26db42a565d312183252563e793cf0de6d9f", h.get(Signing.SIGNATURE));
  }

  @Test
  public void verifiesItsOwnSignatureAndRefusesTheRest() {
    Map<String, String> h = Signing.sign("s3cret", "acme", "POST", "/baton/runs", BODY, AT);
    assertNull(Signing.verify("s3cret", h::get, "POST", "/baton/runs", BODY, AT + 1000, 300_000));
    assertTrue(Signing.verify("other", h::get, "POST", "/baton/runs", BODY, AT, 300_000).contains("does not match"));
    assertTrue(Signing.verify("s3cret", h::get, "POST", "/baton/runs/batch", BODY, AT, 300_000).contains("does not match"));
    assertTrue(Signing.verify("s3cret", h::get, "POST", "/baton/runs", BODY, AT + 300_001, 300_000).contains("away from the executor's clock"));
    assertTrue(Signing.verify("s3cret", Map.<String, String>of()::get, "POST", "/baton/runs", BODY, AT, 300_000).startsWith("missing"));
    String upper = h.get(Signing.SIGNATURE).toUpperCase();
    Map<String, String> respelt = Map.of(Signing.TIMESTAMP, h.get(Signing.TIMESTAMP), Signing.SIGNATURE, upper);
    assertTrue(Signing.verify("s3cret", respelt::get, "POST", "/baton/runs", BODY, AT, 300_000).contains("lower-case hex"));
  }
}
