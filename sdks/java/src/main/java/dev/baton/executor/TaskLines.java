package dev.baton.executor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The runs waiting in line for a worker: one line per task, the lines taking the free workers in
 * turn, each line first come first. One task's thousand runs queued here cost another task's run
 * one run's wait, not the thousand's — as in the Node SDK's pool (libs/executor-sdk/src/pool.ts),
 * where one line made a tenant's other task wait 42 s behind its bulk task's queue (bench
 * task-backlog --bulk-ms). Not thread-safe: the executor holds its lock around every call.
 */
final class TaskLines {
  /** The lines by task, in their turn's order (a LinkedHashMap keeps the order keys were put in). */
  private final LinkedHashMap<Long, ArrayDeque<RunJob>> lines = new LinkedHashMap<>();
  private int size;

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** Puts the run at the end of its task's line; a task new to the line takes its turn after those there. */
  void add(RunJob job) {
    lines.computeIfAbsent(job.request.taskId(), t -> new ArrayDeque<>()).add(job);
    size++;
  }

  /** The first run of the task whose turn it is (null when none waits); that task goes to the back if it has more. */
  RunJob poll() {
    var first = lines.entrySet().iterator();
    if (!first.hasNext()) return null;
    Map.Entry<Long, ArrayDeque<RunJob>> turn = first.next();
    first.remove();
    RunJob job = turn.getValue().poll();
    if (!turn.getValue().isEmpty()) lines.put(turn.getKey(), turn.getValue());
    size--;
    return job;
  }

  /** Takes the run out of its line; false when it is not in line. */
  boolean remove(RunJob job) {
    ArrayDeque<RunJob> line = lines.get(job.request.taskId());
    if (line == null || !line.remove(job)) return false;
    if (line.isEmpty()) lines.remove(job.request.taskId());
    size--;
    return true;
  }

  /** Empties the lines and returns their runs, line by line. */
  List<RunJob> drain() {
    List<RunJob> all = new ArrayList<>(size);
    lines.values().forEach(all::addAll);
    lines.clear();
    size = 0;
    return all;
  }
}
