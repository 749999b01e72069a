package dev.baton.executor;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;

/** The SDK's one ObjectMapper, and the byte counts the protocol's size rules are written in (UTF-8 of compact JSON). */
final class Json {
  static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  static byte[] bytes(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON-serialisable: " + e.getOriginalMessage(), e);
    }
  }

  static String text(Object value) {
    return new String(bytes(value), StandardCharsets.UTF_8);
  }

  static JsonNode parse(byte[] body) throws java.io.IOException {
    return MAPPER.readTree(body);
  }

  static JsonNode parse(String text) {
    try {
      return MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("malformed JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** UTF-8 length of a string. */
  static int utf8Length(String text) {
    return text.getBytes(StandardCharsets.UTF_8).length;
  }

  /** Cuts a string to at most `maxBytes` UTF-8 bytes, never inside a character, with a marker when cut. */
  static String truncateUtf8(String text, int maxBytes) {
    String suffix = "… [truncated]";
    byte[] all = text.getBytes(StandardCharsets.UTF_8);
    if (all.length <= maxBytes) return text;
    int room = Math.max(0, maxBytes - utf8Length(suffix));
    while (room > 0 && (all[room] & 0xC0) == 0x80) room--; // back to a character's first byte
    return new String(all, 0, room, StandardCharsets.UTF_8) + suffix;
  }
}
