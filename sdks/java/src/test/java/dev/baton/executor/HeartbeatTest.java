package dev.baton.executor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;

public class HeartbeatTest {
  /**
   * An engine that hangs (black-holed, frozen): it accepts connections and never answers; the
   * heartbeat goes on to the next engine. Requests time out after a minute: with no try bound,
   * beat() would run past this test's timeout.
   */
  @Test(timeout = 30_000)
  public void aHangingEngineDoesNotHoldTheHeartbeat() throws Exception {
    List<Socket> held = new CopyOnWriteArrayList<>();
    AtomicInteger beats = new AtomicInteger();
    HttpServer live = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    live.createContext(Heartbeat.PATH, ex -> {
      beats.incrementAndGet();
      byte[] reply = "{\"executorId\":7,\"intervalMs\":60000}".getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, reply.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(reply);
      }
    });
    live.start();
    try (ServerSocket hanging = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread acceptor = new Thread(() -> {
        try {
          while (true) held.add(hanging.accept());
        } catch (java.io.IOException closed) {
          // the test is over
        }
      });
      acceptor.setDaemon(true);
      acceptor.start();
      EngineClient client = new EngineClient("acme", "secret", 60_000);
      String hangingUrl = "http://127.0.0.1:" + hanging.getLocalPort();
      String liveUrl = "http://127.0.0.1:" + live.getAddress().getPort();
      Heartbeat heartbeat = new Heartbeat(client, List.of(hangingUrl, liveUrl), 60_000, () -> Map.of("tenantId", "acme"), (sentAt, intervalMs, ack) -> {});
      assertTrue(heartbeat.beat());
      assertEquals(1, beats.get());
      assertEquals(7, heartbeat.executorId());
      // Set aside: the next heartbeat goes to the live engine first.
      assertEquals(List.of(liveUrl, hangingUrl), client.order(List.of(hangingUrl, liveUrl)));
    } finally {
      live.stop(0);
      for (Socket s : held) s.close();
    }
  }
}
