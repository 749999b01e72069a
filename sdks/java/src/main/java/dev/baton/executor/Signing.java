package dev.baton.executor;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Request signing between engine and executor, exactly as libs/protocol/src/signing.ts:
 * HMAC-SHA256 with the tenant's executor secret over
 * {@code timestamp \n METHOD \n path \n hex(sha256(body))}, lower-case hex.
 */
public final class Signing {
  public static final String TENANT = "x-baton-tenant";
  public static final String TIMESTAMP = "x-baton-timestamp";
  public static final String SIGNATURE = "x-baton-signature";
  public static final long DEFAULT_MAX_SKEW_MS = 300_000;
  /** The one accepted spelling: a re-spelt copy of a captured signature is refused, not normalised. */
  private static final Pattern CANONICAL = Pattern.compile("[0-9a-f]{64}");

  private Signing() {}

  /** The three headers of a signed request. */
  public static Map<String, String> sign(String secret, String tenantId, String method, String path, byte[] body, long now) {
    String timestamp = Long.toString(now);
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put(TENANT, tenantId);
    headers.put(TIMESTAMP, timestamp);
    headers.put(SIGNATURE, HexFormat.of().formatHex(hmac(secret, canonical(timestamp, method, path, body))));
    return headers;
  }

  /** Null when the request is signed right, else why not (for a 401's message). `header` looks a header up by its lower-case name. */
  public static String verify(String secret, Function<String, String> header, String method, String path, byte[] body, long now, long maxSkewMs) {
    String timestamp = header.apply(TIMESTAMP);
    String signature = header.apply(SIGNATURE);
    if (timestamp == null || signature == null) return "missing " + TIMESTAMP + " / " + SIGNATURE + " headers";
    double at;
    try {
      at = timestamp.isBlank() ? 0 : Double.parseDouble(timestamp.trim());
    } catch (NumberFormatException e) {
      at = Double.NaN;
    }
    if (!(Math.abs(now - at) <= maxSkewMs)) return TIMESTAMP + " is missing, malformed or more than " + maxSkewMs + " ms away from the executor's clock";
    if (!CANONICAL.matcher(signature).matches()) return SIGNATURE + " is not lower-case hex of exactly 64 characters";
    byte[] expected = hmac(secret, canonical(timestamp, method, path, body));
    if (!MessageDigest.isEqual(expected, HexFormat.of().parseHex(signature))) return "the signature does not match (secret, method, path or body differ)";
    return null;
  }

  static String canonical(String timestamp, String method, String path, byte[] body) {
    return timestamp + "\n" + method.toUpperCase(java.util.Locale.ROOT) + "\n" + path + "\n" + HexFormat.of().formatHex(sha256(body));
  }

  private static byte[] sha256(byte[] body) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(body);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] hmac(String secret, String text) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException(e);
    }
  }
}
