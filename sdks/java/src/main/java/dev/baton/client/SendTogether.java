package dev.baton.client;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Items submitted one at a time by any number of threads, sent in batch requests — the group
 * commit of a client, as the Node SDK's {@code sendTogether} and the Go SDK's {@code together}: an
 * item leaves at once when no request is in flight; while one is, the items submitted meanwhile
 * wait and leave together in the next (up to {@code maxItems} and {@link #MAX_REQUEST_BYTES} a
 * request). One request in flight, not two: with two, the second mostly carried the few items of
 * one round trip, and the console's cost per request, paid twice as often, made every start later
 * (docs/BENCHMARKS.md, On demand). A request refused as a whole (400: an item whose shape the
 * console refuses before writing anything; 413) is sent again in halves down to the item at fault,
 * which gets that refusal alone: a bad item never costs the items it was sent with. The requests
 * go from a daemon thread that lives while items wait.
 */
final class SendTogether<I, R> {
  /** Most bytes of one request's body: under the console's 1 MB JSON limit, whatever the items weigh. */
  static final int MAX_REQUEST_BYTES = 900_000;

  /** One batch request: each item's result in order, or the refusal of the whole. */
  interface Send<I, R> {
    List<R> send(List<I> items) throws InterruptedException;
  }

  /** An item, its JSON's bytes, and where its result goes. */
  private record Waiting<I, R>(I item, int bytes, CompletableFuture<R> result) {}

  private final Send<I, R> send;
  private final int maxItems;
  private final Function<BatonApiException, R> refused;
  private final String what;
  private final ArrayDeque<Waiting<I, R>> waiting = new ArrayDeque<>();
  private boolean inFlight;

  /**
   * @param refused an item's result for the refusal of a request that carried it alone
   * @param what the items' name in a CLIENT_BACKLOG refusal ("runs", "events")
   */
  SendTogether(Send<I, R> send, int maxItems, Function<BatonApiException, R> refused, String what) {
    this.send = send;
    this.maxItems = maxItems;
    this.refused = refused;
    this.what = what;
  }

  /** The item ({@code bytes} of JSON) answered once its request is; at once a 429 CLIENT_BACKLOG when {@code maxWaiting} items wait already. */
  CompletableFuture<R> push(I item, int bytes, int maxWaiting) {
    CompletableFuture<R> result = new CompletableFuture<>();
    boolean start;
    synchronized (this) {
      if (waiting.size() >= maxWaiting) {
        return CompletableFuture.failedFuture(new BatonApiException(429, "CLIENT_BACKLOG", waiting.size() + " " + what + " are waiting to be sent to the console already (maxWaiting)", List.of(), Duration.ZERO));
      }
      waiting.add(new Waiting<>(item, bytes, result));
      start = !inFlight;
      inFlight = true;
    }
    if (start) {
      Thread sender = new Thread(this::drain, "baton-send-" + what);
      sender.setDaemon(true);
      sender.start();
    }
    return result;
  }

  /** Sends what waits, one request at a time, until nothing does. */
  private void drain() {
    while (true) {
      List<Waiting<I, R>> batch = new ArrayList<>();
      synchronized (this) {
        int size = 0;
        while (!waiting.isEmpty() && batch.size() < maxItems) {
          int next = waiting.peek().bytes() + 1;
          if (!batch.isEmpty() && size + next > MAX_REQUEST_BYTES) break;
          batch.add(waiting.poll());
          size += next;
        }
        if (batch.isEmpty()) {
          inFlight = false;
          return;
        }
      }
      List<I> items = new ArrayList<>(batch.size());
      for (Waiting<I, R> w : batch) items.add(w.item());
      List<Object> outcomes = sendSplitting(items);
      for (int i = 0; i < batch.size(); i++) {
        Object outcome = outcomes.get(i);
        if (outcome instanceof Throwable failure) batch.get(i).result().completeExceptionally(failure);
        else batch.get(i).result().complete(cast(outcome));
      }
    }
  }

  /** Each item's result, or the failure of the request that carried it; refused as a whole for shape or size, in halves. */
  private List<Object> sendSplitting(List<I> items) {
    List<Object> outcomes = new ArrayList<>(items.size());
    try {
      List<R> results = send.send(items);
      if (results.size() != items.size()) {
        BatonApiException bad = new BatonApiException(0, "BAD_ANSWER", "the console answered " + results.size() + " results for " + items.size() + " items", List.of(), Duration.ZERO);
        for (int i = 0; i < items.size(); i++) outcomes.add(bad);
        return outcomes;
      }
      outcomes.addAll(results);
      return outcomes;
    } catch (BatonApiException e) {
      boolean splittable = e.status() == 400 || e.status() == 413;
      if (splittable && items.size() > 1) {
        int half = (items.size() + 1) / 2;
        outcomes.addAll(sendSplitting(items.subList(0, half)));
        outcomes.addAll(sendSplitting(items.subList(half, items.size())));
        return outcomes;
      }
      for (int i = 0; i < items.size(); i++) outcomes.add(splittable ? refused.apply(e) : e);
      return outcomes;
    } catch (InterruptedException | RuntimeException e) {
      if (e instanceof InterruptedException) Thread.currentThread().interrupt();
      for (int i = 0; i < items.size(); i++) outcomes.add(e);
      return outcomes;
    }
  }

  @SuppressWarnings("unchecked")
  private R cast(Object outcome) {
    return (R) outcome;
  }
}
