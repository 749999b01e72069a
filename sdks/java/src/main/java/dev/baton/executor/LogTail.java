package dev.baton.executor;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * A run's log lines not yet taken by an engine, capped in lines and bytes (the Node SDK's
 * log-tail.ts): interim callbacks carry what is pending while the handler runs, the final
 * callback the rest. Each line has a sequence number; lines leave only from the front, so the
 * lines dropped unsent are the numbers between the last delivered one and the front.
 */
final class LogTail {
  private record Line(long seq, long at, String level, String message) {}

  private final ArrayDeque<Line> lines = new ArrayDeque<>();
  private final int maxLines;
  private final int maxBytes;
  private final int maxLineBytes;
  private long bytes;
  private long nextSeq;
  private long deliveredUpTo;

  LogTail(int maxLines, int maxBytes, int maxLineBytes) {
    this.maxLines = maxLines;
    this.maxBytes = maxBytes;
    this.maxLineBytes = maxLineBytes;
  }

  synchronized void write(String level, String message, long at) {
    String text = Json.truncateUtf8(message, maxLineBytes);
    lines.addLast(new Line(nextSeq++, at, level, text));
    bytes += Json.utf8Length(text);
    while (lines.size() > maxLines || (bytes > maxBytes && !lines.isEmpty())) bytes -= Json.utf8Length(lines.removeFirst().message());
  }

  /** The sequence number the next line gets: pass it to {@link #delivered} once the lines read before it were taken. */
  synchronized long mark() {
    return nextSeq;
  }

  synchronized boolean isEmpty() {
    return lines.isEmpty() && dropped() == 0;
  }

  /** The pending lines as LogLine JSON, with a marker line first when some were dropped unsent. */
  synchronized ArrayNode json() {
    ArrayNode out = Json.MAPPER.createArrayNode();
    long dropped = dropped();
    if (dropped > 0) {
      long at = lines.isEmpty() ? System.currentTimeMillis() : lines.peekFirst().at();
      line(out, at, "warn", "[baton] log truncated: " + dropped + " earlier line(s) dropped (the tail keeps the last " + maxLines + " lines / " + maxBytes + " bytes)");
    }
    for (Line l : lines) line(out, l.at(), l.level(), l.message());
    return out;
  }

  /** An engine took the lines read before {@code mark()} was {@code upTo}: forget them. */
  synchronized void delivered(long upTo) {
    if (upTo <= deliveredUpTo) return;
    deliveredUpTo = upTo;
    for (Iterator<Line> it = lines.iterator(); it.hasNext(); ) {
      Line l = it.next();
      if (l.seq() >= upTo) break;
      bytes -= Json.utf8Length(l.message());
      it.remove();
    }
  }

  private long dropped() {
    long front = lines.isEmpty() ? nextSeq : lines.peekFirst().seq();
    return Math.max(0, front - deliveredUpTo);
  }

  private static void line(ArrayNode out, long at, String level, String message) {
    ObjectNode o = out.addObject();
    o.put("at", at);
    o.put("level", level);
    o.put("message", message);
  }
}
