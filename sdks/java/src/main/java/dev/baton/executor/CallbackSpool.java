package dev.baton.executor;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Final callbacks waiting for an engine, in a file that outlives the process (the Node SDK's
 * spool, same format): JSON Lines, append-only,
 * <pre>
 * {"op":"add","id":"42:1","at":1732240000000,"urls":["http://engine-1:8090"],"callback":{…}}
 * {"op":"done","id":"42:1"}
 * </pre>
 * An {@code add} is written before the callback's first send, a {@code done} once an engine took
 * it (not fsynced: it survives the process, not the machine). On open the live entries are
 * replayed and the file rewritten with them only, and again when dead lines outnumber live ones;
 * a torn last line is skipped. {@code <file>.lock} holds the owner's pid: one live process per file.
 */
final class CallbackSpool {
  private static final int COMPACT_MIN_LINES = 1000;
  /** Files held by executors of this process (a lock with our own pid is not free for a second one). */
  private static final java.util.Set<Path> HELD = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final Path file;
  private final Map<String, String> live = new LinkedHashMap<>();
  private BufferedWriter out;
  private int fileLines;

  private CallbackSpool(Path file) {
    this.file = file;
  }

  /** A spool kept in memory only (null file). */
  static CallbackSpool memory() {
    return new CallbackSpool(null);
  }

  /**
   * Opens (or creates) the spool; {@code numbered}: if another live process holds {@code file},
   * tries {@code <name>.2.jsonl}, {@code .3}, … instead.
   */
  static CallbackSpool open(Path file, boolean numbered) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) Files.createDirectories(parent);
    List<Path> candidates = new ArrayList<>(List.of(file));
    String name = file.getFileName().toString();
    for (int i = 2; numbered && i <= 32; i++) candidates.add(file.resolveSibling(name.endsWith(".jsonl") ? name.replaceAll("\\.jsonl$", "." + i + ".jsonl") : name + "." + i));
    for (Path candidate : candidates) {
      if (!lock(candidate)) continue;
      CallbackSpool spool = new CallbackSpool(candidate);
      spool.load();
      return spool;
    }
    throw new IOException("callback spool " + file + " is in use by another process; give each executor process its own spool file (BATON_EXECUTOR_SPOOL)");
  }

  /** The file in use, or null when memory-only. */
  Path file() {
    return file;
  }

  /** What a previous process left: one sender entry per pending callback. */
  synchronized List<CallbackSender.Entry> pending() {
    List<CallbackSender.Entry> entries = new ArrayList<>();
    for (String line : live.values()) {
      JsonNode add = Json.parse(line);
      List<String> urls = new ArrayList<>();
      add.path("urls").forEach(u -> urls.add(u.asText()));
      entries.add(new CallbackSender.Entry(add.get("id").asText(), urls, Json.bytes(add.get("callback"))));
    }
    return entries;
  }

  synchronized void add(CallbackSender.Entry entry) {
    if (file == null || live.containsKey(entry.key)) return; // a replayed entry is in the file already
    String line = "{\"op\":\"add\",\"id\":" + Json.text(entry.key) + ",\"at\":" + System.currentTimeMillis() + ",\"urls\":" + Json.text(entry.urls) + ",\"callback\":" + new String(entry.json, StandardCharsets.UTF_8) + "}";
    live.put(entry.key, line);
    append(line);
  }

  synchronized void remove(String key) {
    if (file == null || live.remove(key) == null) return;
    append("{\"op\":\"done\",\"id\":" + Json.text(key) + "}");
    if (fileLines >= COMPACT_MIN_LINES && fileLines > 2 * live.size()) rewrite();
  }

  /** Compacts and closes the file (deleted when nothing is pending) and releases the lock. */
  synchronized void close() {
    if (file == null) return;
    try {
      if (out != null) out.close();
      out = null;
      if (live.isEmpty()) Files.deleteIfExists(file);
      else rewrite();
      if (out != null) out.close();
      out = null;
      Files.deleteIfExists(lockOf(file));
      HELD.remove(file.toAbsolutePath().normalize());
    } catch (IOException e) {
      warn("could not close the callback spool " + file + ": " + e.getMessage());
    }
  }

  private void load() throws IOException {
    if (Files.exists(file)) {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        try {
          JsonNode op = Json.parse(line);
          String id = op.path("id").asText(null);
          if (id == null) continue;
          if ("add".equals(op.path("op").asText()) && op.has("callback")) live.put(id, line);
          else if ("done".equals(op.path("op").asText())) live.remove(id);
        } catch (IllegalArgumentException torn) {
          // a line cut by a crash mid-write: what it said was not acknowledged, and its add is earlier
        }
      }
    }
    rewrite();
  }

  private void append(String line) {
    try {
      out.write(line);
      out.write('\n');
      out.flush();
      fileLines++;
    } catch (IOException e) {
      warn("could not write the callback spool " + file + " (the callback is sent anyway): " + e.getMessage());
    }
  }

  /** The file with the live entries only: written beside it, then renamed over it. */
  private void rewrite() {
    try {
      if (out != null) out.close();
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.write(tmp, new ArrayList<>(live.values()), StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      fileLines = live.size();
      out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.APPEND, StandardOpenOption.CREATE);
    } catch (IOException e) {
      warn("could not rewrite the callback spool " + file + ": " + e.getMessage());
    }
  }

  /** Takes {@code <file>.lock} unless a live process other than this one holds it. */
  private static boolean lock(Path file) throws IOException {
    if (!HELD.add(file.toAbsolutePath().normalize())) return false;
    Path lock = lockOf(file);
    String me = Long.toString(ProcessHandle.current().pid());
    try {
      Files.writeString(lock, me, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      return true;
    } catch (FileAlreadyExistsException held) {
      String holder = Files.readString(lock).trim();
      boolean alive = holder.matches("\\d{1,10}") && !holder.equals(me) && ProcessHandle.of(Long.parseLong(holder)).map(ProcessHandle::isAlive).orElse(false);
      if (alive) {
        HELD.remove(file.toAbsolutePath().normalize());
        return false;
      }
      Files.writeString(lock, me); // a dead process's lock: take it over
      return true;
    }
  }

  private static Path lockOf(Path file) {
    return file.resolveSibling(file.getFileName() + ".lock");
  }

  private static void warn(String message) {
    System.getLogger("dev.baton.executor").log(System.Logger.Level.ERROR, "[baton executor] " + message);
  }
}
